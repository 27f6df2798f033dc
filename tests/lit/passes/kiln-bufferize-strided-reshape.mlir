// RUN: kiln-opt %s --split-input-file -p kiln-bufferize | filecheck %s

// A column x[:, j] seen as 1-D: the reshape only drops a unit dimension, so it is a strided
// view of x (stride 8), read in place: no copy, no allocation but the result's.
// CHECK-LABEL: func.func @column
// CHECK:         %[[S:.*]] = memref.subview %x[0, %j] [4, 1] [1, 1] : memref<4x8xf64> to memref<4x1xf64, strided<[8, 1], offset: ?>>
// CHECK-NEXT:    %[[C:.*]] = memref.collapse_shape %[[S]] {{\[}}[0 : i64, 1 : i64]] : memref<4x1xf64, strided<[8, 1], offset: ?>> into memref<4xf64, strided<[8], offset: ?>>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : memref<4xf64, strided<[8], offset: ?>>) outs(%out : memref<4xf64>)
func.func @column(%x: tensor<4x8xf64>, %j: index) -> tensor<4xf64> {
  %s = tensor.extract_slice %x[0, %j] [4, 1] [1, 1] : tensor<4x8xf64> to tensor<4x1xf64>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x1xf64> into tensor<4xf64>
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %t = arith.addf %a, %a : f64
    linalg.yield %t : f64
  } -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// A 2 x 2 block of x joins two dimensions of stride 8 and 1: not one strided view, so it is
// copied to a contiguous buffer first.
// CHECK-LABEL: func.func @block
// CHECK:         memref.subview
// CHECK:         %[[T:.*]] = memref.alloc() : memref<2x2xf64>
// CHECK:         memref.collapse_shape %[[T]] {{\[}}[0 : i64, 1 : i64]] : memref<2x2xf64> into memref<4xf64>
func.func @block(%x: tensor<4x8xf64>) -> tensor<4xf64> {
  %s = tensor.extract_slice %x[1, 1] [2, 2] [1, 1] : tensor<4x8xf64> to tensor<2x2xf64>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<2x2xf64> into tensor<4xf64>
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// -----

// x[n] of a 3-D x as a matrix: rows of x[n] step over whole rows (stride 8 = 1 * 8), so the
// 1x4x8 slice joins into one run of 32 and splits into 4 x 8 again: views of x, no copy.
// CHECK-LABEL: func.func @plane
// CHECK:         %[[S:.*]] = memref.subview %x[%n, 0, 0] [1, 4, 8] [1, 1, 1] : memref<3x4x8xf64> to memref<1x4x8xf64, strided<[32, 8, 1], offset: ?>>
// CHECK-NEXT:    %[[C:.*]] = memref.collapse_shape %[[S]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] : memref<1x4x8xf64, strided<[32, 8, 1], offset: ?>> into memref<32xf64, strided<[1], offset: ?>>
// CHECK-NEXT:    %[[E:.*]] = memref.expand_shape %[[C]] {{\[}}[0 : i64, 1 : i64]] output_shape [8, 4] : memref<32xf64, strided<[1], offset: ?>> into memref<8x4xf64, strided<[4, 1], offset: ?>>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : memref<8x4xf64, strided<[4, 1], offset: ?>>) outs(%out : memref<8x4xf64>)
func.func @plane(%x: tensor<3x4x8xf64>, %n: index) -> tensor<8x4xf64> {
  %s = tensor.extract_slice %x[%n, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<3x4x8xf64> to tensor<1x4x8xf64>
  %c = tensor.collapse_shape %s [[0, 1, 2]] : tensor<1x4x8xf64> into tensor<32xf64>
  %m = tensor.expand_shape %c [[0, 1]] output_shape [8, 4] : tensor<32xf64> into tensor<8x4xf64>
  %e = tensor.empty() : tensor<8x4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x4xf64>) outs(%e : tensor<8x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %t = arith.addf %a, %a : f64
    linalg.yield %t : f64
  } -> tensor<8x4xf64>
  func.return %r : tensor<8x4xf64>
}

// -----

// Columns 1-2 of each row of x (stride 8 between rows of the slice, 2 elements each) do not join:
// copied, as NumPy's reshape of such a slice copies.
// CHECK-LABEL: func.func @strided_rows
// CHECK:         memref.subview
// CHECK:         %[[T:.*]] = memref.alloc() : memref<1x4x2xf64>
// CHECK:         memref.collapse_shape %[[T]]
func.func @strided_rows(%x: tensor<3x4x8xf64>) -> tensor<8xf64> {
  %s = tensor.extract_slice %x[1, 0, 1] [1, 4, 2] [1, 1, 1] : tensor<3x4x8xf64> to tensor<1x4x2xf64>
  %c = tensor.collapse_shape %s [[0, 1, 2]] : tensor<1x4x2xf64> into tensor<8xf64>
  %e = tensor.empty() : tensor<8xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<8xf64>
  func.return %r : tensor<8xf64>
}
