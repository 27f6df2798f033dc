// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s
// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg,kiln-bufferize | filecheck %s --check-prefix=BUF

// A static concat: each operand a tensor.insert_slice at the sum of the sizes before it (a
// linalg.generic writing part of its outputs would fail the verifier, which kiln-opt runs).
// Returned, it is built in the out-parameter: no temporary, no copy of the whole.

// CHECK-LABEL: func.func @concat
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[A:.*]] = tensor.insert_slice %a into %[[E]][0] [1] [1] : tensor<1xf32> into tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.insert_slice %b into %[[A]][1] [2] [1] : tensor<2xf32> into tensor<3xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<3xf32>
// BUF-LABEL:   func.func @concat(%a: memref<1xf32>, %b: memref<2xf32>, %out: memref<3xf32>)
// BUF-NOT:       memref.alloc
// BUF:           memref.subview %out[0] [1] [1]
// BUF:           memref.subview %out[1] [2] [1]
// BUF-NOT:       memref.alloc
// BUF:           func.return
func.func @concat(%a: tensor<1xf32>, %b: tensor<2xf32>) -> tensor<3xf32> {
  %r = graph.concat %a, %b axis 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

// Along the last axis, an empty operand skipped; a computed operand is computed in its slab of
// the result (allocated before it), not in a temporary copied there.

// CHECK-LABEL: func.func @columns
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK-NEXT:    %[[A:.*]] = tensor.insert_slice %{{.*}} into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x5xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.insert_slice %b into %[[A]][0, 3] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x5xf32>
// CHECK-NOT:     tensor.insert_slice
// BUF-LABEL:   func.func @columns
// BUF-NEXT:      %[[C:.*]] = memref.alloc() : memref<2x5xf32>
// BUF-NEXT:      %[[S:.*]] = memref.subview %[[C]][0, 0] [2, 3] [1, 1]
// BUF-NEXT:      linalg.generic {{.*}} ins(%a : memref<2x3xf32>) outs(%[[S]] : memref<2x3xf32, strided<[5, 1]>>)
// BUF:           arith.negf
// BUF:           %[[T:.*]] = memref.subview %[[C]][0, 3] [2, 2] [1, 1]
// BUF-NEXT:      linalg.generic {{.*}} ins(%b : memref<2x2xf32>) outs(%[[T]] : memref<2x2xf32, strided<[5, 1], offset: 3>>)
// BUF-NOT:       memref.alloc
// BUF:           ins(%[[C]], %[[C]] : memref<2x5xf32>, memref<2x5xf32>) outs(%out : memref<2x5xf32>)
func.func @columns(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>, %z: tensor<2x0xf32>) -> tensor<2x5xf32> {
  %n = graph.neg %a : tensor<2x3xf32>
  %r = graph.concat %n, %z, %b axis 1 : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %d = graph.add %r, %r : tensor<2x5xf32>
  func.return %d : tensor<2x5xf32>
}
