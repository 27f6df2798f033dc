// RUN: kiln-opt %s -p parallel-to-gpu -t cuda | filecheck %s

// Sequential control flow stays on the host: an scf.for around a kernel launch, a host
// read of a device scalar feeding an scf.if.
// CHECK:       extern "C" __global__ void iterate_kernel0(float *{{.*}}) {
// CHECK:       void iterate(float *__restrict__ x, int64_t n) {
// CHECK:         for (int64_t {{.*}} = 0; {{.*}} < n; {{.*}} += 1) {
// CHECK:           iterate_kernel0<<<dim3((unsigned)1, (unsigned)1, (unsigned)1), dim3((unsigned)64, (unsigned)1, (unsigned)1)>>>(x_dev);
// CHECK:           if (kiln_cuda_check(cudaDeviceSynchronize(), "kernel iterate_kernel0")) { KILN_RELEASE_ALL(); return; }
// CHECK:         }
// CHECK:         float [[V:.*]];
// CHECK:         if (kiln_cuda_check(cudaMemcpy(&[[V]], x_dev + 0, sizeof(float), cudaMemcpyDeviceToHost), "read a device element")) { KILN_RELEASE_ALL(); return; }
// CHECK:         if ({{.*}}) {
// CHECK:         cudaMemcpy(x, x_dev, 64*sizeof(float), cudaMemcpyDeviceToHost)
func.func @iterate(%x: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  scf.for %t = %c0 to %n step %c1 {
    "scf.parallel"(%c0, %c64, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %v = memref.load %x[%i] : memref<64xf32>
      %w = arith.mulf %v, %half : f32
      memref.store %w, %x[%i] : memref<64xf32>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  %first = memref.load %x[%c0] : memref<64xf32>
  %big = arith.cmpf ogt, %first, %half : f32
  scf.if %big {
    memref.store %half, %x[%c0] : memref<64xf32>
  }
  func.return
}
