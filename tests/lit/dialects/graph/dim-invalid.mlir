// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @axis_out_of_range(%x: tensor<?xf32>) -> tensor<i64> {
  %n = graph.dim %x, 1 : tensor<?xf32> -> tensor<i64>
  func.return %n : tensor<i64>
}
// CHECK: graph.dim: axis 1 is out of range for rank 1

// -----

func.func @not_i64(%x: tensor<?xf32>) -> tensor<i32> {
  %n = graph.dim %x, 0 : tensor<?xf32> -> tensor<i32>
  func.return %n : tensor<i32>
}
// CHECK: graph.dim: the result must be tensor<i64>, got tensor<i32>
