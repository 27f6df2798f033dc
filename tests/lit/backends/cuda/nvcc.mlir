// REQUIRES: nvcc
// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda > %t.cu
// RUN: nvcc -c -Xcompiler -fPIC -arch=sm_80 %t.cu -o %t.o
// RUN: nm %t.o | filecheck %s

// The emitted CUDA compiles; the host entry point is exported with C linkage.
// CHECK-DAG: T mixed
// CHECK-DAG: T kiln_cuda_last_error
func.func @mixed(%x: memref<4x?xf64>, %idx: memref<4xi64>, %out: memref<4xf64>, %m: memref<4xi64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%out : memref<4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x?xf64>) outs(%out : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %e = math.exp %a : f64
    %s = arith.maximumf %acc, %e : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : memref<4xi64>) outs(%m : memref<4xi64>) {
  ^bb0(%a: i64, %c: i64):
    %c3 = arith.constant 3 : i64
    %q = arith.floordivsi %a, %c3 : i64
    linalg.yield %q : i64
  }
  func.return
}
