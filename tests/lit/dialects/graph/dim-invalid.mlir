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

// -----

func.func @pad_changes_another_axis(%r: tensor<?x3xf32>, %n: tensor<i64>) -> tensor<?x4xf32> {
  %p = graph.pad_to_bound %r axes array<i64: 0> sizes[%n] : tensor<?x3xf32> -> tensor<?x4xf32>
  func.return %p : tensor<?x4xf32>
}
// CHECK: graph.pad_to_bound: axis 1 is not padded, so keeps its size

// -----

func.func @pad_one_axis_twice(%r: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %p = graph.pad_to_bound %r axes array<i64: 0, 0> sizes[%n, %n] : tensor<?xf32> -> tensor<?xf32>
  func.return %p : tensor<?xf32>
}
// CHECK: graph.pad_to_bound: one size per padded axis, each axis of the value at most once

// -----

func.func @pad_to_another_element_type(%r: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf64> {
  %p = graph.pad_to_bound %r axes array<i64: 0> sizes[%n] : tensor<?xf32> -> tensor<?xf64>
  func.return %p : tensor<?xf64>
}
// CHECK: graph.pad_to_bound: the result has the value's element type and rank

// -----

func.func @pad_by_a_float(%r: tensor<?xf32>, %n: tensor<f32>) -> tensor<?xf32> {
  %p = "graph.pad_to_bound"(%r, %n) <{axes = array<i64: 0>}> : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  func.return %p : tensor<?xf32>
}
// CHECK: Expected attribute tensor<i64> but got tensor<f32>
