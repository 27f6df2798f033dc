// RUN: kiln-opt %s --split-input-file --verify-diagnostics -t 'c{isa=avx2}' | filecheck %s
// Forms of ops the C emitter cannot translate are diagnostics naming the op, not tracebacks.

// CHECK: C backend: 'vector.transfer_read': vector<f32> is not a whole number of avx2 registers
func.func @zero_d_vector(%m: memref<8xf32>, %o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad : memref<8xf32>, vector<f32>
  vector.transfer_write %v, %o[%c0] : vector<f32>, memref<8xf32>
  func.return
}

// -----

// CHECK: C backend: 'vector.transfer_read': unsupported op in the C backend
func.func @transfer(%m: memref<8xf32>, %o: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0], %pad : memref<8xf32>, vector<8xf32>
  vector.transfer_write %v, %o[%c0] : vector<8xf32>, memref<8xf32>
  func.return
}

// -----

// CHECK: C backend: 'memref.dim': dimension 5 of a rank-1 memref
func.func @dim_out_of_range(%m: memref<?xf32>) -> index {
  %c5 = arith.constant 5 : index
  %d = memref.dim %m, %c5 : memref<?xf32>
  func.return %d : index
}

// -----

// CHECK: C backend: 'func.func': @branches has several blocks (cf branches): use scf control flow
func.func @branches(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  func.return
^b:
  func.return
}
