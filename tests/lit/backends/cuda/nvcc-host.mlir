// REQUIRES: nvcc
// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda > %t.cu
// RUN: nvcc -c -Xcompiler -fPIC -arch=sm_80 %t.cu -o %t.o
// RUN: nm %t.o | filecheck %s

// Host prints and tiled matmul kernels compile; the print sink and the residency table are
// exported unmangled, like the entry points (the Python loader sets both).
// CHECK-DAG: T report
// CHECK-DAG: T kiln_cuda_sync_resident
// CHECK-DAG: B kiln_cuda_residents
// CHECK-DAG: D kiln_write_hook
// CHECK-DAG: T report_matmul0
func.func @report(%a: memref<?x40xf64>, %b: memref<40x33xf64>, %out: memref<?x33xf64>, %steps: memref<i32>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%out : memref<?x33xf64>)
  linalg.matmul ins(%a, %b : memref<?x40xf64>, memref<40x33xf64>) outs(%out : memref<?x33xf64>)
  krt.print "out = {} after {} steps\0A"(%out, %steps : memref<?x33xf64>, memref<i32>)
  func.return
}
