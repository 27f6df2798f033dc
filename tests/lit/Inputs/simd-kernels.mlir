// Kernels for the backends/c/simd-*.mlir tests: map with fma/exp/log/tanh/cmpf(ult)/select/maximumf, and an f64 dot product (reduction).
func.func @kernel(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %f = math.fma %a, %b, %half : f32
    %e = math.exp %f : f32
    %l = math.log %b : f32
    %t = math.tanh %l : f32
    %c = arith.cmpf ult, %a, %b : f32
    %s = arith.select %c, %e, %t : f32
    %r = arith.maximumf %s, %a : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  func.return
}
func.func @dot(%x: memref<?xf64>, %y: memref<?xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %b = memref.load %y[%i] : memref<?xf64>
    %p = arith.mulf %a, %b : f64
    %acc = memref.load %out[] : memref<f64>
    %s = arith.addf %acc, %p : f64
    memref.store %s, %out[] : memref<f64>
  }
  func.return
}
