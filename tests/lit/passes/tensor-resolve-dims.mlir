// RUN: kiln-opt %s --split-input-file -p tensor-resolve-dims | filecheck %s

// A slice update x[:n] += s * y[:n]: the sizes of the intermediates read the slice size %n, not
// the dims of the generics before them, so each generic keeps one use.
// CHECK-LABEL: func.func @slice_update
// CHECK-NOT:     tensor.dim
// CHECK:         %[[P:.*]] = tensor.empty(%n) : tensor<?xf64>
// CHECK:         %[[Q:.*]] = tensor.empty(%n) : tensor<?xf64>
// CHECK:         %[[R:.*]] = tensor.empty(%n) : tensor<?xf64>
// CHECK:         tensor.expand_shape {{.*}} output_shape [1, %n]
// CHECK-NOT:     tensor.dim
// CHECK:         func.return
func.func @slice_update(%x: tensor<4x8xf64>, %y: tensor<8xf64>, %s: tensor<f64>, %n: index) -> tensor<4x8xf64> {
  %c0 = arith.constant 0 : index
  %row = tensor.extract_slice %x[1, 0] [1, %n] [1, 1] : tensor<4x8xf64> to tensor<1x?xf64>
  %xs = tensor.collapse_shape %row [[0, 1]] : tensor<1x?xf64> into tensor<?xf64>
  %ys = tensor.extract_slice %y[0] [%n] [1] : tensor<8xf64> to tensor<?xf64>
  %d0 = tensor.dim %ys, %c0 : tensor<?xf64>
  %e0 = tensor.empty(%d0) : tensor<?xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s, %ys : tensor<f64>, tensor<?xf64>) outs(%e0 : tensor<?xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<?xf64>
  %d1 = tensor.dim %p, %c0 : tensor<?xf64>
  %e1 = tensor.empty(%d1) : tensor<?xf64>
  %q = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%xs, %p : tensor<?xf64>, tensor<?xf64>) outs(%e1 : tensor<?xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.addf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<?xf64>
  %d2 = tensor.dim %xs, %c0 : tensor<?xf64>
  %e2 = tensor.empty(%d2) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%q : tensor<?xf64>) outs(%e2 : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<?xf64>
  %d3 = tensor.dim %r, %c0 : tensor<?xf64>
  %back = tensor.expand_shape %r [[0, 1]] output_shape [1, %d3] : tensor<?xf64> into tensor<1x?xf64>
  %out = tensor.insert_slice %back into %x[1, 0] [1, %n] [1, 1] : tensor<1x?xf64> into tensor<4x8xf64>
  func.return %out : tensor<4x8xf64>
}

// -----

// Sizes that are not known from the producer stay dims: a function argument's, a collapsed
// group of two dynamic dimensions, a rank-reducing slice.
// CHECK-LABEL: func.func @unknown
// CHECK:         tensor.dim %a, %{{.*}} : tensor<?x?xf64>
// CHECK:         tensor.dim %[[C:.*]], %{{.*}} : tensor<?xf64>
// CHECK:         tensor.dim %[[S:.*]], %{{.*}} : tensor<?xf64>
func.func @unknown(%a: tensor<?x?xf64>, %n: index) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf64>
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<?x?xf64> into tensor<?xf64>
  %d1 = tensor.dim %flat, %c0 : tensor<?xf64>
  %row = tensor.extract_slice %a[0, 0] [1, %n] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
  %d2 = tensor.dim %row, %c0 : tensor<?xf64>
  func.return %d0, %d1, %d2 : index, index, index
}
