// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s

// Elementwise with broadcasting (a row vector over a matrix): one grid-stride kernel, and a
// host entry point with the C ABI that copies in, launches, checks, copies the output back.
// CHECK:       extern "C" __global__ void add_row_kernel0(float *{{.*}}, float *{{.*}}, float *{{.*}}) {
// CHECK:         int64_t [[T:.*]] = (int64_t)threadIdx.x;
// CHECK:         for (int64_t [[I:.*]] = {{.*}}; [[I]] < 12; [[I]] += {{.*}}) {
// CHECK:           int64_t [[J:.*]] = [[I]] % 4;
// CHECK:           float {{.*}} = {{.*}}[[[J]]];
// Kernels come first, then host entry points.
// CHECK:       extern "C" __global__ void scale_kernel0(int64_t {{.*}}, double *{{.*}}, int64_t {{.*}}_d0, double {{.*}}, double *{{.*}}, int64_t {{.*}}_d0) {
// CHECK:       extern "C" __attribute__((visibility("default"))) void add_row(float *__restrict__ x, float *__restrict__ row, float *__restrict__ out) {
// CHECK:         void *kiln_live[4] = {NULL};
// CHECK:         kiln_resident *x_res = kiln_cuda_resident(x);
// CHECK:         if (x_res) {
// CHECK-NEXT:      if (kiln_cuda_make_current(x_res, false, "copy x to the device")) { KILN_RELEASE_ALL(); return; }
// CHECK-NEXT:      x_dev = (float *)x_res->dev;
// CHECK-NEXT:    } else {
// CHECK:           kiln_live[0] = x_dev;
// CHECK-NEXT:      cudaMemcpy(x_dev, x, 12*sizeof(float), cudaMemcpyHostToDevice)
// CHECK:         kiln_cuda_make_current(out_res, true, "copy out to the device")
// CHECK:         add_row_kernel0<<<dim3((unsigned)1, (unsigned)1, (unsigned)1), dim3((unsigned)32, (unsigned)1, (unsigned)1)>>>(x_dev, row_dev, out_dev);
// CHECK:         if (kiln_cuda_check(cudaGetLastError(), "launching kernel add_row_kernel0")) { KILN_RELEASE_ALL(); return; }
// CHECK:         if (kiln_cuda_check(cudaDeviceSynchronize(), "kernel add_row_kernel0")) { KILN_RELEASE_ALL(); return; }
// A written parameter is copied back unless it is a resident variable (whose device copy is now newer).
// CHECK:         if (!out_res) {
// CHECK-NEXT:      cudaMemcpy(out, out_dev, 12*sizeof(float), cudaMemcpyDeviceToHost)
// CHECK-NOT:     cudaMemcpy(x, x_dev
// CHECK:         if (KILN_RELEASE_ALL()) return;
func.func @add_row(%x: memref<3x4xf32>, %row: memref<4xf32>, %out: memref<3x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %row : memref<3x4xf32>, memref<4xf32>) outs(%out : memref<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  func.return
}

// Dynamic sizes: the launch size is computed on the host; sizes are kernel parameters.
// CHECK:       void scale(double *__restrict__ x, int64_t x_d0, double k, double *__restrict__ out, int64_t out_d0) {
// CHECK:         scale_kernel0<<<dim3((unsigned){{.*}}), dim3((unsigned){{.*}})>>>(x_d0, x_dev, x_d0, k, out_dev, out_d0);
func.func @scale(%x: memref<?xf64>, %k: f64, %out: memref<?xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<?xf64>) outs(%out : memref<?xf64>) {
  ^bb0(%a: f64, %c: f64):
    %s = arith.mulf %a, %k : f64
    linalg.yield %s : f64
  }
  func.return
}
