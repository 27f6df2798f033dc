// RUN: kiln-opt %s -p linalg-conv-to-kernel | filecheck %s
// RUN: kiln-opt %s -p linalg-conv-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p linalg-conv-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c > %t.c && cc -O2 -march=native -fopenmp -c %t.c -o %t.o && cc -O2 -Wall -Werror -c %t.c -o %t.o

// relu(conv2d(x, f) + b), stride 2: fill + conv generic + elementwise epilogue become one
// kernel.conv2d writing %out; the epilogue runs on row blocks of the (n*oh*ow) x co output.
// CHECK-LABEL: func.func @layer
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.conv2d ins(%x, %f : memref<2x9x9x3xf32>, memref<3x3x3x8xf32>) outs(%out : memref<2x4x4x8xf32>) strides array<i64: 2, 2> {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: index, %[[END:.*]]: index):
// CHECK:           memref.collapse_shape %out {{.*}} : memref<2x4x4x8xf32> into memref<32x8xf32>
// CHECK:           memref.subview %{{.*}}[%[[BEGIN]], 0]
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:             arith.maximumf
// CHECK:           kernel.yield
// CHECK-NOT:     linalg.generic

// A convolution whose output is read before the fill is not recognised.
// CHECK-LABEL: func.func @not_zero_filled
// CHECK-NOT:     kernel.conv2d
// CHECK:         linalg.generic

// A static product this small (32 x 8 x 27 multiply-adds) runs on the calling thread: no OpenMP region.
// C-LABEL: void layer(
// C:         const kiln_gemm_f32_conv conv = {9, 9, 3, 4, 4, 3, 2, 2};
// C:         kiln_gemm_f32_pack_b(27, 8, f, 8, 1,
// C-NOT:     #pragma omp
// C:         kiln_gemm_f32_rows(row_begin, row_end, 8, 27, x, 0, 0, &conv,
func.func @layer(%x: memref<2x9x9x3xf32>, %f: memref<3x3x3x8xf32>, %b: memref<8xf32>, %out: memref<2x4x4x8xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %y = memref.alloc() : memref<2x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x4x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, ((d1 * 2) + d4), ((d2 * 2) + d5), d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %f : memref<2x9x9x3xf32>, memref<3x3x3x8xf32>) outs(%y : memref<2x4x4x8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %p = arith.mulf %a, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b : memref<2x4x4x8xf32>, memref<8xf32>) outs(%out : memref<2x4x4x8xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  }
  memref.dealloc %y : memref<2x4x4x8xf32>
  func.return
}

func.func @not_zero_filled(%x: memref<1x5x5x2xf64>, %f: memref<3x3x2x4xf64>, %y: memref<1x3x3x4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 + d4), (d2 + d5), d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %f : memref<1x5x5x2xf64>, memref<3x3x2x4xf64>) outs(%y : memref<1x3x3x4xf64>) {
  ^bb0(%a: f64, %w: f64, %acc: f64):
    %p = arith.mulf %a, %w : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  func.return
}
