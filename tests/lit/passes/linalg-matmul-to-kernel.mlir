// RUN: kiln-opt %s -p linalg-matmul-to-kernel | filecheck %s
// RUN: kiln-opt %s -p linalg-matmul-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p linalg-matmul-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c > %t.c && cc -O2 -march=native -fopenmp -c %t.c -o %t.o && cc -O2 -Wall -Werror -c %t.c -o %t.o

// relu(x @ w + b): fill + matmul generic + elementwise epilogue become one kernel.matmul
// writing %out, the epilogue re-indexed onto the row block just computed.
// CHECK-LABEL: func.func @linear
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.matmul ins(%x, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%out : memref<64x48xf32>) {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: index, %[[END:.*]]: index):
// CHECK:           %[[ROWS:.*]] = memref.subview %out[%[[BEGIN]], 0]
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]], %b : {{.*}}) outs(%{{.*}} :
// CHECK:             arith.maximumf
// CHECK:           kernel.yield
// CHECK-NOT:     linalg.generic

// C-LABEL: void linear(
// C:         kiln_gemm_f32_pack_b(32, 48, w, 48, 1,
// C:         #pragma omp parallel num_threads(kiln_num_threads())
// C:         kiln_gemm_f32_rows(
// C:         for (
func.func @linear(%x: memref<64x32xf32>, %w: memref<32x48xf32>, %b: memref<48xf32>, %out: memref<64x48xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  %1 = memref.alloc() : memref<64x48xf32>
  linalg.fill ins(%0 : f32) outs(%1 : memref<64x48xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%1 : memref<64x48xf32>) {
  ^bb0(%2: f32, %3: f32, %4: f32):
    %5 = arith.mulf %2, %3 : f32
    %6 = arith.addf %4, %5 : f32
    linalg.yield %6 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %b : memref<64x48xf32>, memref<48xf32>) outs(%out : memref<64x48xf32>) {
  ^bb0(%7: f32, %8: f32, %9: f32):
    %10 = arith.addf %7, %8 : f32
    %11 = arith.maximumf %10, %0 : f32
    linalg.yield %11 : f32
  }
  memref.dealloc %1 : memref<64x48xf32>
  func.return
}
