// RUN: kiln-opt %s -p convert-graph-to-linalg | filecheck %s
// graph.gather becomes kalgo.gather into a tensor.empty (dynamic sizes from the index arrays,
// then the operand's trailing axes); graph.scatter becomes kalgo.scatter whose destination is the
// operand itself, so that bufferization writes in place when the operand is dead afterwards.

// CHECK-LABEL: func.func @take
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x3xf64>
// CHECK-NEXT:    %{{.*}} = kalgo.gather {} ins(%x, %i : tensor<10x3xf64>, tensor<4xi64>) outs(%[[E]] : tensor<4x3xf64>) -> tensor<4x3xf64>
func.func @take(%x: tensor<10x3xf64>, %i: tensor<4xi64>) -> tensor<4x3xf64> {
  %0 = graph.gather %x[%i] : (tensor<10x3xf64>, tensor<4xi64>) -> tensor<4x3xf64>
  func.return %0 : tensor<4x3xf64>
}

// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %i, %[[C0]] : tensor<?xi64>
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[M:.*]] = tensor.dim %x, %[[C1]] : tensor<5x?xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[N]], %[[M]]) : tensor<?x?xf32>
// CHECK-NEXT:    %{{.*}} = kalgo.gather {} ins(%x, %i : tensor<5x?xf32>, tensor<?xi64>) outs(%[[E]] : tensor<?x?xf32>) -> tensor<?x?xf32>
func.func @dynamic(%x: tensor<5x?xf32>, %i: tensor<?xi64>) -> tensor<?x?xf32> {
  %0 = graph.gather %x[%i] : (tensor<5x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @add_at
// CHECK:         %{{.*}} = kalgo.scatter {kind = "add"} ins(%u, %i : tensor<3xf64>, tensor<3xi64>) outs(%x : tensor<8xf32>) -> tensor<8xf32>
func.func @add_at(%x: tensor<8xf32>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<8xf32> {
  %0 = graph.scatter "add" %u into %x[%i] : (tensor<3xf64>, tensor<8xf32>, tensor<3xi64>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// graph.iota: a kalgo.iota into a tensor.empty of the count (a negative count is 0).
// CHECK-LABEL: func.func @iota
// CHECK:         %[[N:.*]] = tensor.extract %n[] : tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[S:.*]] = arith.maxsi %[[I]], %[[Z]] : index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[S]]) : tensor<?xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.iota {} ins() outs(%[[E]] : tensor<?xi64>) -> tensor<?xi64>
func.func @iota(%n: tensor<i64>) -> tensor<?xi64> {
  %0 = graph.iota %n : tensor<i64> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// graph.nonzero: the count of nonzero elements (x != 0 as i64, summed by a reduction generic),
// a tensor.empty of that size, then kalgo.nonzero into it.
// CHECK-LABEL: func.func @nonzero
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<i64>) -> tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf32>) outs(%[[Z]] : tensor<i64>) {
// CHECK:           %[[NZ:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.extui %[[NZ]] : i1 to i64
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %{{.*}}, %[[ONE]] : i64
// CHECK-NEXT:      linalg.yield %[[SUM]] : i64
// CHECK:         %[[N:.*]] = tensor.extract %[[C]][] : tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[I]]) : tensor<?xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.nonzero {} ins(%x : tensor<8xf32>) outs(%[[E]] : tensor<?xi64>) -> tensor<?xi64>
func.func @nonzero(%x: tensor<8xf32>) -> tensor<?xi64> {
  %0 = graph.nonzero %x : tensor<8xf32> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// A bool operand is counted as it is; a complex one is nonzero when either part is.
// CHECK-LABEL: func.func @nonzero_bool
// CHECK:         ^{{.*}}(%[[B:.*]]: i1, %[[ACC:.*]]: i64):
// CHECK-NEXT:      %[[ONE:.*]] = arith.extui %[[B]] : i1 to i64
// CHECK-NEXT:      %{{.*}} = arith.addi %[[ACC]], %[[ONE]] : i64
// CHECK:         kalgo.nonzero {} ins(%m : tensor<?xi1>)
func.func @nonzero_bool(%m: tensor<?xi1>) -> tensor<?xi64> {
  %0 = graph.nonzero %m : tensor<?xi1> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// CHECK-LABEL: func.func @nonzero_complex
// CHECK:         %[[RE:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %[[IM:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    %{{.*}} = arith.ori %[[RE]], %[[IM]] : i1
// CHECK:         kalgo.nonzero {} ins(%z : tensor<4xcomplex<f64>>)
func.func @nonzero_complex(%z: tensor<4xcomplex<f64>>) -> tensor<?xi64> {
  %0 = graph.nonzero %z : tensor<4xcomplex<f64>> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// graph.compress: the count of the mask's nonzero elements (the same reduction as nonzero's), a
// tensor.empty of the values' element type and that size, then kalgo.compress into it.
// CHECK-LABEL: func.func @compress
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<i64>) -> tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m : tensor<?xi1>) outs(%[[Z]] : tensor<i64>) {
// CHECK:           arith.extui %{{.*}} : i1 to i64
// CHECK:         %[[N:.*]] = tensor.extract %[[C]][] : tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[I]]) : tensor<?xcomplex<f32>>
// CHECK-NEXT:    %{{.*}} = kalgo.compress {} ins(%z, %m : tensor<?xcomplex<f32>>, tensor<?xi1>) outs(%[[E]] : tensor<?xcomplex<f32>>) -> tensor<?xcomplex<f32>>
func.func @compress(%z: tensor<?xcomplex<f32>>, %m: tensor<?xi1>) -> tensor<?xcomplex<f32>> {
  %0 = graph.compress %z, %m : (tensor<?xcomplex<f32>>, tensor<?xi1>) -> tensor<?xcomplex<f32>>
  func.return %0 : tensor<?xcomplex<f32>>
}

// A float mask is counted as `!= 0` (NaN included), as nonzero counts.
// CHECK-LABEL: func.func @compress_by_floats
// CHECK:         ins(%m : tensor<8xf64>)
// CHECK:           arith.cmpf une, %{{.*}}, %{{.*}} : f64
// CHECK:         kalgo.compress {} ins(%x, %m : tensor<8xi32>, tensor<8xf64>) outs(%{{.*}} : tensor<?xi32>) -> tensor<?xi32>
func.func @compress_by_floats(%x: tensor<8xi32>, %m: tensor<8xf64>) -> tensor<?xi32> {
  %0 = graph.compress %x, %m : (tensor<8xi32>, tensor<8xf64>) -> tensor<?xi32>
  func.return %0 : tensor<?xi32>
}
