// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s
// RUN: kiln-opt %s -p kiln-bufferize,linalg-generalize-named-ops,convert-linalg-to-loops,canonicalize,cse | filecheck %s --check-prefix=LOOPS
// RUN: kiln-opt %s -p kiln-bufferize,linalg-generalize-named-ops,convert-linalg-to-loops,canonicalize,cse | filecheck %s --check-prefix=ONLY

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// CHECK:       "memref.global"() <{sym_name = "[[CST:__kiln_constant_0]]", type = memref<2xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>, sym_visibility = "private", constant}>

// The returned value is built in the out-parameter; one temporary for the intermediate.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %[[A]] : memref<4xf32>, memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @chain(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %a : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    %q = math.exp %s : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// A fill + reduction chain writes straight into the out-parameter.
// CHECK-LABEL: func.func @rowsum(
// CHECK-SAME:      %[[A:.*]]: memref<3x5xf64>, %[[OUT:.*]]: memref<3xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill ins(%{{.*}} : f64) outs(%[[OUT]] : memref<3xf64>)
// CHECK-NEXT:    linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[A]] : memref<3x5xf64>) outs(%[[OUT]] : memref<3xf64>)
// CHECK-NOT:     memref.alloc
// CHECK:         func.return
func.func @rowsum(%a: tensor<3x5xf64>) -> tensor<3xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<3x5xf64>) outs(%f : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %x, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  func.return %r : tensor<3xf64>
}

// Dynamic shapes: tensor.dim becomes memref.dim; matmul accumulates in the out-parameter.
// CHECK-LABEL: func.func @mm(
// CHECK-SAME:      %[[A:.*]]: memref<?x3xf64>, %[[B:.*]]: memref<3x4xf64>, %[[OUT:.*]]: memref<?x4xf64>) {
// CHECK-NOT:     memref.alloc
// CHECK:         memref.dim %[[A]], %{{.*}} : memref<?x3xf64>
// CHECK:         linalg.fill ins(%{{.*}} : f64) outs(%[[OUT]] : memref<?x4xf64>)
// CHECK-NEXT:    linalg.matmul ins(%[[A]], %[[B]] : memref<?x3xf64>, memref<3x4xf64>) outs(%[[OUT]] : memref<?x4xf64>)
// CHECK-NEXT:    func.return
func.func @mm(%a: tensor<?x3xf64>, %b: tensor<3x4xf64>) -> tensor<?x4xf64> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  %m = tensor.dim %a, %c0 : tensor<?x3xf64>
  %e = tensor.empty(%m) : tensor<?x4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<?x4xf64>) -> tensor<?x4xf64>
  %r = linalg.matmul ins(%a, %b : tensor<?x3xf64>, tensor<3x4xf64>)
                     outs(%f : tensor<?x4xf64>) -> tensor<?x4xf64>
  func.return %r : tensor<?x4xf64>
}

// A call returns into the caller's out-parameter; a second call gets a temporary sized
// from the callee's body; a returned argument is copied.
// CHECK-LABEL: func.func @caller(
// CHECK-SAME:      %[[A:.*]]: memref<?x3xf64>, %[[B:.*]]: memref<3x4xf64>, %[[OUT:.*]]: memref<?x4xf64>, %[[OUT1:.*]]: memref<3x4xf64>, %[[OUT2:.*]]: memref<3x4xf64>) {
// CHECK-NEXT:    func.call @mm(%[[A]], %[[B]], %[[OUT]]) : (memref<?x3xf64>, memref<3x4xf64>, memref<?x4xf64>) -> ()
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = memref.dim %[[A]], %[[C0]] : memref<?x3xf64>
// CHECK-NEXT:    %[[T:.*]] = memref.alloc(%[[N]]) : memref<?x4xf64>
// CHECK-NEXT:    func.call @mm(%[[A]], %[[B]], %[[T]])
// CHECK-NEXT:    %[[V:.*]] = memref.subview %[[T]][0, 0] [3, 4] [1, 1] : memref<?x4xf64> to memref<3x4xf64, strided<[4, 1]>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[V]] : memref<3x4xf64, strided<[4, 1]>>) outs(%[[OUT1]] : memref<3x4xf64>)
// CHECK:         memref.dealloc %[[T]] : memref<?x4xf64>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[B]] : memref<3x4xf64>) outs(%[[OUT2]] : memref<3x4xf64>)
// CHECK:         func.return
func.func @caller(%a: tensor<?x3xf64>, %b: tensor<3x4xf64>) -> (tensor<?x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) {
  %r = func.call @mm(%a, %b) : (tensor<?x3xf64>, tensor<3x4xf64>) -> tensor<?x4xf64>
  %r2 = func.call @mm(%a, %b) : (tensor<?x3xf64>, tensor<3x4xf64>) -> tensor<?x4xf64>
  %s = tensor.extract_slice %r2[0, 0] [3, 4] [1, 1] : tensor<?x4xf64> to tensor<3x4xf64>
  func.return %r, %s, %b : tensor<?x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
}

// Broadcast through an indexing map; a strided, rank-reducing slice.
// CHECK-LABEL: func.func @bcast_slice(
// CHECK-SAME:      %[[A:.*]]: memref<2x6xf32>, %[[V:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>) {
// CHECK-NEXT:    %[[S:.*]] = memref.subview %[[A]][1, 1] [1, 3] [1, 2] : memref<2x6xf32> to memref<3xf32, strided<[2], offset: 7>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[S]], %[[V]] : memref<3xf32, strided<[2], offset: 7>>, memref<3xf32>) outs(%[[OUT]] : memref<3xf32>)
func.func @bcast_slice(%a: tensor<2x6xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %s = tensor.extract_slice %a[1, 1] [1, 3] [1, 2] : tensor<2x6xf32> to tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %v : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.subf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:      %[[V:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<2x3xf32>) {
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%[[V]] : memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
func.func @broadcast(%v: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// Reshape = collapse to 1-D then expand: views of the argument, copied into the result.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:      %[[A:.*]]: memref<2x6xf32>, %[[OUT:.*]]: memref<3x4xf32>) {
// CHECK-NEXT:    %[[F:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0 : i64, 1 : i64]] : memref<2x6xf32> into memref<12xf32>
// CHECK-NEXT:    %[[R:.*]] = memref.expand_shape %[[F]] {{\[\[}}0 : i64, 1 : i64]] output_shape [3, 4] : memref<12xf32> into memref<3x4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[R]] : memref<3x4xf32>) outs(%[[OUT]] : memref<3x4xf32>)
func.func @reshape(%a: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
  %r = tensor.expand_shape %f [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// A returned argument is copied; so is a dense constant, read from a memref.global.
// CHECK-LABEL: func.func @identity_and_constant(
// CHECK-SAME:      %[[A:.*]]: memref<2xf32>, %[[OUT:.*]]: memref<2xf32>, %[[OUT1:.*]]: memref<2xf32>) {
// CHECK-NEXT:    %[[G:.*]] = memref.get_global @[[CST]] : memref<2xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]] : memref<2xf32>) outs(%[[OUT]] : memref<2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[G]] : memref<2xf32>) outs(%[[OUT1]] : memref<2xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         func.return
func.func @identity_and_constant(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %a, %c : tensor<2xf32>, tensor<2xf32>
}

// An outs operand that is an argument is copied into the out-parameter, never overwritten.
// CHECK-LABEL: func.func @keep_init(
// CHECK-SAME:      %[[A:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>, %[[OUT1:.*]]: memref<4xf32>) {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK:         %{{.*}} = arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[OUT1]] : memref<4xf32>)
// CHECK-NOT:     memref.alloc
func.func @keep_init(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = arith.addf %x, %o : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  func.return %r, %a : tensor<4xf32>, tensor<4xf32>
}

// Only func/scf/arith/math/memref ops remain after lowering to loops.
// ONLY-NOT: {{linalg\.|tensor\.}}
// LOOPS-LABEL: func.func @chain(
// LOOPS:         scf.for
// LOOPS:           memref.load
// LOOPS:           math.exp
// LOOPS:           memref.store
// LOOPS:         memref.dealloc
