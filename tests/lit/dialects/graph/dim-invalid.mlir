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

// -----

func.func @relax_changes_a_size(%x: tensor<3x4xf32>) -> tensor<?x5xf32> {
  %a = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x5xf32>
  func.return %a : tensor<?x5xf32>
}
// CHECK: graph.relax_shape: (-1, 5) does not relax (3, 4) (same rank; each size kept or dynamic)

// -----

func.func @relax_changes_the_rank(%x: tensor<3x4xf32>) -> tensor<?xf32> {
  %a = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?xf32>
  func.return %a : tensor<?xf32>
}
// CHECK: graph.relax_shape: (-1,) does not relax (3, 4) (same rank; each size kept or dynamic)
