// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s

// matmul 8x512 @ 512x8: 64 output points, each reduced over k = 512 by a block-level tree
// (shared-memory tiling of matmul is not implemented yet; see docs/cuda.md).
// CHECK:       extern "C" __global__ void mm_kernel1(
// CHECK:         __shared__ float shared[256];
// CHECK:         for (int64_t [[P:.*]] = {{.*}}; [[P]] < 64; [[P]] += {{.*}}) {
// CHECK:           for (int64_t [[K:.*]] = {{.*}}; [[K]] < 512; [[K]] += {{.*}}) {
// CHECK:             float {{.*}} = {{.*}}[{{.*}}*512 + [[K]]];
// CHECK:             float {{.*}} = {{.*}}[[[K]]*8 + {{.*}}];
// CHECK:       mm_kernel1<<<dim3((unsigned)64, (unsigned)1, (unsigned)1), dim3((unsigned)256, (unsigned)1, (unsigned)1)>>>
func.func @mm(%a: memref<8x512xf32>, %b: memref<512x8xf32>, %out: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<8x8xf32>)
  linalg.matmul ins(%a, %b : memref<8x512xf32>, memref<512x8xf32>) outs(%out : memref<8x8xf32>)
  func.return
}
