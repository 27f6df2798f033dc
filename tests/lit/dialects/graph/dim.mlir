// RUN: kiln-opt %s --split-input-file | filecheck %s
// RUN: kiln-opt %s --split-input-file --print-op-generic | kiln-opt --split-input-file | filecheck %s
// RUN: kiln-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// graph.dim: the runtime size of one dimension as a 0-d i64 tensor.

// CHECK-LABEL: func.func @dim
// CHECK:         %{{.*}} = graph.dim %x, 0 : tensor<?x4xf32> -> tensor<i64>
// CHECK-NEXT:    %{{.*}} = graph.dim %x, 1 : tensor<?x4xf32> -> tensor<i64>
// GENERIC:       "graph.dim"(%{{.*}}) <{axis = 0 : i64}> : (tensor<?x4xf32>) -> tensor<i64>
func.func @dim(%x: tensor<?x4xf32>) -> (tensor<i64>, tensor<i64>) {
  %n = graph.dim %x, 0 : tensor<?x4xf32> -> tensor<i64>
  %m = graph.dim %x, 1 : tensor<?x4xf32> -> tensor<i64>
  func.return %n, %m : tensor<i64>, tensor<i64>
}

// -----

// graph.relax_shape: the same array with some static sizes made dynamic.

// CHECK-LABEL: func.func @relax
// CHECK:         %{{.*}} = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x?xf32>
// GENERIC:       "graph.relax_shape"(%{{.*}}) : (tensor<3x4xf32>) -> tensor<?x4xf32>
func.func @relax(%x: tensor<3x4xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  %a = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x4xf32>
  %b = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x?xf32>
  func.return %a, %b : tensor<?x4xf32>, tensor<?x?xf32>
}

// -----

// graph.pad_to_bound: a value at the front of a tensor whose padded axes have the given sizes
// (static where a size is a constant).

// CHECK-LABEL: func.func @pad_to_bound
// CHECK:         %{{.*}} = graph.pad_to_bound %r axes array<i64: 0> sizes[%eight] : tensor<?xf32> -> tensor<8xf32>
// CHECK-NEXT:    %{{.*}} = graph.pad_to_bound %s axes array<i64: 1, 0> sizes[%n, %eight] : tensor<?x?xf64> -> tensor<8x?xf64>
// GENERIC:       "graph.pad_to_bound"(%{{.*}}, %{{.*}}) <{axes = array<i64: 0>}> : (tensor<?xf32>, tensor<i64>) -> tensor<8xf32>
func.func @pad_to_bound(%r: tensor<?xf32>, %s: tensor<?x?xf64>, %n: tensor<i64>) -> (tensor<8xf32>, tensor<8x?xf64>) {
  %eight = graph.constant dense<8> : tensor<i64>
  %p = graph.pad_to_bound %r axes array<i64: 0> sizes[%eight] : tensor<?xf32> -> tensor<8xf32>
  %q = graph.pad_to_bound %s axes array<i64: 1, 0> sizes[%n, %eight] : tensor<?x?xf64> -> tensor<8x?xf64>
  func.return %p, %q : tensor<8xf32>, tensor<8x?xf64>
}
