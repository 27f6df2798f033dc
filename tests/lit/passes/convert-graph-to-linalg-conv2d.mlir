// RUN: kiln-opt %s -p convert-graph-to-linalg | filecheck %s

// VALID, strides 2x1: a zero fill, then one generic over (n, oh, ow, co, kh, kw, ci).
// CHECK-LABEL: func.func @valid
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x3x4x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 2) + d4), (d2 + d5), d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %f : tensor<1x7x6x3xf32>, tensor<3x3x3x8xf32>) outs(%[[FILL]] : tensor<1x3x4x8xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @valid(%x: tensor<1x7x6x3xf32>, %f: tensor<3x3x3x8xf32>) -> tensor<1x3x4x8xf32> {
  %y = graph.conv2d %x, %f strides array<i64: 2, 1> padding "VALID" : (tensor<1x7x6x3xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x4x8xf32>
  func.return %y : tensor<1x3x4x8xf32>
}

// SAME, stride 2 on 7x6: TensorFlow pads (1, 1) rows and (0, 1) columns; the input is
// inserted into a zero-filled 9x7 tensor, then convolved VALID.
// CHECK-LABEL: func.func @same
// CHECK:         %[[PAD:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<2x9x7x3xf64>)
// CHECK:         %[[IN:.*]] = tensor.insert_slice %x into %[[PAD]][0, 1, 0, 0] [2, 7, 6, 3] [1, 1, 1, 1]
// CHECK:         linalg.generic {{.*}} ins(%[[IN]], %f : tensor<2x9x7x3xf64>, tensor<3x3x3x4xf64>)
func.func @same(%x: tensor<2x7x6x3xf64>, %f: tensor<3x3x3x4xf64>) -> tensor<2x4x3x4xf64> {
  %y = graph.conv2d %x, %f strides array<i64: 2, 2> padding "SAME" : (tensor<2x7x6x3xf64>, tensor<3x3x3x4xf64>) -> tensor<2x4x3x4xf64>
  func.return %y : tensor<2x4x3x4xf64>
}
