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

func.func @pad_not_to_the_bound(%r: tensor<?xf32>, %m: tensor<8xi1>) -> tensor<9xf32> {
  %p = graph.pad_to_bound %r to %m axes array<i64: 0> bound_axes array<i64: 0> : (tensor<?xf32>, tensor<8xi1>) -> tensor<9xf32>
  func.return %p : tensor<9xf32>
}
// CHECK: graph.pad_to_bound: axis 0 has the size of axis 0 of its bound

// -----

func.func @pad_changes_another_axis(%r: tensor<?x3xf32>, %m: tensor<8xi1>) -> tensor<8x4xf32> {
  %p = graph.pad_to_bound %r to %m axes array<i64: 0> bound_axes array<i64: 0> : (tensor<?x3xf32>, tensor<8xi1>) -> tensor<8x4xf32>
  func.return %p : tensor<8x4xf32>
}
// CHECK: graph.pad_to_bound: axis 1 is not padded, so keeps its size

// -----

func.func @pad_one_axis_twice(%r: tensor<?xf32>, %m: tensor<8xi1>) -> tensor<8xf32> {
  %p = graph.pad_to_bound %r to %m, %m axes array<i64: 0, 0> bound_axes array<i64: 0, 0> : (tensor<?xf32>, tensor<8xi1>, tensor<8xi1>) -> tensor<8xf32>
  func.return %p : tensor<8xf32>
}
// CHECK: graph.pad_to_bound: one distinct axis and one bound axis per bound

// -----

func.func @pad_to_another_element_type(%r: tensor<?xf32>, %m: tensor<8xi1>) -> tensor<8xf64> {
  %p = graph.pad_to_bound %r to %m axes array<i64: 0> bound_axes array<i64: 0> : (tensor<?xf32>, tensor<8xi1>) -> tensor<8xf64>
  func.return %p : tensor<8xf64>
}
// CHECK: graph.pad_to_bound: the result has the value's element type and rank
