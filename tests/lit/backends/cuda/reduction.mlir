// RUN: kiln-opt %s --split-input-file -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s

// A sum over 4096 elements: one block of 256 threads, per-thread partials, a shared-memory
// tree, and thread 0 combining with the output's initial value.
// CHECK:       extern "C" __global__ void total_kernel1(
// CHECK:         __shared__ float shared[256];
// CHECK:         for (int64_t {{.*}} = [[TID:v[_0-9]*]]; {{.*}} < 4096; {{.*}} += {{.*}}) {
// CHECK:         shared[[[TID]]] =
// CHECK-NEXT:    __syncthreads();
// CHECK:         for (int64_t {{.*}} = 0; {{.*}} < 8; {{.*}} += 1) {
// CHECK:           if ({{.*}}) {
// CHECK:             shared[[[TID]]] =
// CHECK:           __syncthreads();
// CHECK:         if ({{.*}}) {
// CHECK:           float [[S:.*]] = shared[0];
// CHECK:           float [[F:.*]] = {{.*}} + [[S]];
// CHECK:       void total(
// CHECK:         total_kernel0<<<dim3((unsigned)1, (unsigned)1, (unsigned)1), dim3((unsigned)32,
// CHECK:         total_kernel1<<<dim3((unsigned)1, (unsigned)1, (unsigned)1), dim3((unsigned)256,
func.func @total(%x: memref<4096xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<4096xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// Many short rows: one thread per row, summing sequentially (no tree).
// CHECK:       extern "C" __global__ void rows_kernel0(
// CHECK-NOT:     __shared__
// CHECK:         for (int64_t {{.*}} = 0; {{.*}} < 8; {{.*}} += 1) {
// CHECK:           int32_t {{.*}} = {{.*}} > {{.*}} ? {{.*}} : {{.*}};
func.func @rows(%x: memref<10000x8xi32>, %out: memref<10000xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<10000x8xi32>) outs(%out : memref<10000xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.maxsi %acc, %a : i32
    linalg.yield %s : i32
  }
  func.return
}
