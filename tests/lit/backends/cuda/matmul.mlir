// RUN: kiln-opt %s --split-input-file -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s

// matmul 8x512 @ 512x8: 64 output points (too few for tiling), each reduced over k = 512 by a
// block-level tree.
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

// -----

// matmul 100x70 @ 70x50 (dynamic rows): shared-memory tiles of A (32x16) and B (16x32) between
// barriers, 2x2 outputs per thread, mul then add in k order, edges guarded; grid from the sizes.
// CHECK:       extern "C" __global__ void mmt_matmul0(float *[[A:.*]], int64_t {{.*}}_d0, float *[[B:.*]], float *[[C:.*]], int64_t {{.*}}_d0) {
// CHECK:         __shared__ float [[AT:.*]][512];
// CHECK:         __shared__ float [[BT:.*]][512];
// CHECK:         int64_t [[TX:.*]] = (int64_t)threadIdx.x;
// CHECK:         int64_t [[TY:.*]] = (int64_t)threadIdx.y;
// CHECK:         for (int64_t [[KT:.*]] = 0; [[KT]] < 70; [[KT]] += 16) {
// CHECK:           [[AT]][{{.*}}] =
// CHECK:           [[BT]][{{.*}}] =
// CHECK:           __syncthreads();
// CHECK:           for (int64_t [[KK:.*]] = 0; [[KK]] < {{.*}}; [[KK]] += 1) {
// CHECK:             float [[X:.*]] = [[AT]][{{.*}}];
// CHECK:             float [[Y:.*]] = [[BT]][{{.*}}];
// CHECK:             float [[P:.*]] = [[X]] * [[Y]];
// CHECK:             float {{.*}} = [[P]] + {{.*}};
// CHECK:           __syncthreads();
// CHECK:         if ({{.*}}) {
// CHECK-NEXT:      [[C]][{{.*}}*50 + {{.*}}] =
// CHECK:       void mmt(
// CHECK:         mmt_matmul0<<<dim3((unsigned)2, (unsigned){{.*}}, (unsigned)1), dim3((unsigned)16, (unsigned)16, (unsigned)1)>>>(a_dev, a_d0, b_dev, out_dev, out_d0);
func.func @mmt(%a: memref<?x70xf32>, %b: memref<70x50xf32>, %out: memref<?x50xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<?x50xf32>)
  linalg.matmul ins(%a, %b : memref<?x70xf32>, memref<70x50xf32>) outs(%out : memref<?x50xf32>)
  func.return
}
