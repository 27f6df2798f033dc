// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s
// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg,kiln-bufferize | filecheck %s --check-prefix=BUF

// graph.dim: tensor.dim, cast to i64, filled into a 0-d tensor.

// CHECK-LABEL: func.func @dim
// CHECK:         %[[I:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = tensor.dim %x, %[[I]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<i64>
// CHECK-NEXT:    %{{.*}} = linalg.fill ins(%[[N]] : i64) outs(%[[E]] : tensor<i64>) -> tensor<i64>
// BUF-LABEL:   func.func @dim(%x: memref<?x4xf32>, %out: memref<i64>)
// BUF:           memref.dim %x
// BUF:           linalg.fill ins(%{{.*}} : i64) outs(%out : memref<i64>)
func.func @dim(%x: tensor<?x4xf32>) -> tensor<i64> {
  %n = graph.dim %x, 0 : tensor<?x4xf32> -> tensor<i64>
  func.return %n : tensor<i64>
}

// -----

// Reshape of a dynamic tensor: collapse to tensor<?xT>; the one dynamic result size is the
// element count over the static sizes; a static result goes through tensor.cast.

// CHECK-LABEL: func.func @reshape
// CHECK:         %[[F:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK:         %[[F2:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T:.*]] = tensor.dim %[[F2]], %[[Z]] : tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[N:.*]] = arith.divui %[[T]], %[[R]] : index
// CHECK-NEXT:    %{{.*}} = tensor.expand_shape %[[F2]] {{\[}}[0 : i64, 1 : i64]] output_shape [2, %[[N]]] : tensor<?xf32> into tensor<2x?xf32>
// CHECK:         %[[F3:.*]] = tensor.collapse_shape %x {{\[}}[0 : i64, 1 : i64]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[F3]] : tensor<?xf32> to tensor<8xf32>
// CHECK-NEXT:    %{{.*}} = tensor.expand_shape %[[C]] {{\[}}[0 : i64, 1 : i64]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// BUF-LABEL:   func.func @reshape
// BUF:           memref.expand_shape %{{.*}} output_shape [2, %{{.*}}] : memref<?xf32> into memref<2x?xf32>
// BUF:           "memref.cast"(%{{.*}}) : (memref<?xf32>) -> memref<8xf32>
func.func @reshape(%x: tensor<?x4xf32>) -> (tensor<?xf32>, tensor<2x?xf32>, tensor<2x4xf32>) {
  %a = graph.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  %b = graph.reshape %x : tensor<?x4xf32> -> tensor<2x?xf32>
  %c = graph.reshape %x : tensor<?x4xf32> -> tensor<2x4xf32>
  func.return %a, %b, %c : tensor<?xf32>, tensor<2x?xf32>, tensor<2x4xf32>
}

// -----

// Concat along a dynamic axis: insert_slice at the running sum of the sizes (a static size
// as a constant).

// CHECK-LABEL: func.func @concat
// CHECK:         %[[A:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK-NEXT:    %[[B:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[AB:.*]] = arith.addi %[[A]], %[[B]] : index
// CHECK-NEXT:    %[[ALL:.*]] = arith.addi %[[AB]], %[[A]] : index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[ALL]]) : tensor<?x4xf32>
// CHECK-NEXT:    %[[S1:.*]] = tensor.insert_slice %x into %[[E]][0, 0] [%[[A]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// CHECK-NEXT:    %[[S2:.*]] = tensor.insert_slice %y into %[[S1]][%[[A]], 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<?x4xf32>
// CHECK-NEXT:    %{{.*}} = tensor.insert_slice %x into %[[S2]][%[[AB]], 0] [%[[A]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// BUF-LABEL:   func.func @concat
// BUF-NOT:       memref.alloc
// BUF:           memref.subview %out[%{{.*}}, 0] [2, 4] [1, 1]
func.func @concat(%x: tensor<?x4xf32>, %y: tensor<2x4xf32>) -> tensor<?x4xf32> {
  %r = graph.concat %x, %y, %x axis 0 : (tensor<?x4xf32>, tensor<2x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

// graph.relax_shape: a tensor.cast; a view of the same buffer at the buffer level.

// CHECK-LABEL: func.func @relax
// CHECK-NEXT:    %{{.*}} = tensor.cast %x : tensor<3x4xf32> to tensor<?x4xf32>
// BUF-LABEL:   func.func @relax(%x: memref<3x4xf32>, %out: memref<?x4xf32>)
// BUF-NEXT:      %[[V:.*]] = "memref.cast"(%x) : (memref<3x4xf32>) -> memref<?x4xf32>
// BUF-NEXT:      linalg.generic {{.*}} ins(%[[V]] : memref<?x4xf32>) outs(%out : memref<?x4xf32>)
func.func @relax(%x: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %r = graph.relax_shape %x : tensor<3x4xf32> -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

// A constant broadcast to a dynamic size that only a graph.insert_slice names, through a reshape
// adding a unit axis (`y[:, 1] = 2.0` into a column of an array of run-time length): sized by
// the insert's size operand.

// CHECK-LABEL: func.func @column_fill
// CHECK:         %[[N:.*]] = tensor.extract %n[] : tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[I]]) : tensor<?xf64>
// CHECK-NEXT:    %[[B:.*]] = linalg.generic {{.*}} ins(%v : tensor<f64>) outs(%[[E]] : tensor<?xf64>)
// CHECK:         %{{.*}} = tensor.expand_shape %[[B]] {{\[}}[0 : i64, 1 : i64]] output_shape [%{{.*}}, 1] : tensor<?xf64> into tensor<?x1xf64>
// BUF-LABEL:   func.func @column_fill
func.func @column_fill(%x: tensor<?x3xf64>, %n: tensor<i64>) -> tensor<?x3xf64> {
  %o = graph.constant dense<0> : tensor<i64>
  %v = graph.constant dense<2.000000e+00> : tensor<f64>
  %b = graph.broadcast %v : tensor<f64> -> tensor<?xf64>
  %c = graph.reshape %b : tensor<?xf64> -> tensor<?x1xf64>
  %r = graph.insert_slice %c into %x[%o] [%n] static_offsets array<i64: -9223372036854775808, 1> static_sizes array<i64: -9223372036854775808, 1> strides array<i64: 1, 1> : tensor<?x1xf64> into tensor<?x3xf64>
  func.return %r : tensor<?x3xf64>
}

// -----

// graph.pad_to_bound: the value inserted at offset 0 into a tensor.empty of the given sizes;
// bufferized, the front of the caller's buffer (an argument is copied there; an op producing the
// value writes there itself, as tests/test_dynamic_results.py's functions do).

// CHECK-LABEL: func.func @pad_to_bound
// CHECK:         %[[S:.*]] = tensor.extract %n[] : tensor<i64>
// CHECK-NEXT:    %[[D:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x3xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %r, %[[Z]] : tensor<?x3xf32>
// CHECK-NEXT:    %{{.*}} = tensor.insert_slice %r into %[[E]][0, 0] [%[[N]], 3] [1, 1] : tensor<?x3xf32> into tensor<?x3xf32>
// BUF-LABEL:   func.func @pad_to_bound(%r: memref<?x3xf32>, %n: memref<i64>, %out: memref<?x3xf32>)
// BUF:           %[[V:.*]] = memref.subview %out[0, 0] [%{{.*}}, 3] [1, 1]
// BUF-NEXT:      linalg.generic {{.*}} ins(%r : memref<?x3xf32>) outs(%[[V]] : memref<?x3xf32, strided<[3, 1]>>)
func.func @pad_to_bound(%r: tensor<?x3xf32>, %n: tensor<i64>) -> tensor<?x3xf32> {
  %p = graph.pad_to_bound %r axes array<i64: 0> sizes[%n] : tensor<?x3xf32> -> tensor<?x3xf32>
  func.return %p : tensor<?x3xf32>
}
