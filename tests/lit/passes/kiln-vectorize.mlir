// RUN: kiln-opt %s --split-input-file -p 'kiln-vectorize{isa=avx2},canonicalize,cse' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'kiln-vectorize{isa=avx512}' | filecheck %s --check-prefix=W16
// RUN: kiln-opt %s --split-input-file -p 'kiln-vectorize{isa=scalar width=256}' | filecheck %s --check-prefix=W8
// RUN: kiln-opt %s --split-input-file -p 'kiln-vectorize{isa=avx2 tail=scalar},canonicalize,cse' | filecheck %s --check-prefix=SCALAR

// Elementwise: unit-stride loads/stores become vector ops, invariant scalars a broadcast
// made once before the loop. A body that calls exp (or log, tanh) runs 4 copies per
// iteration, interleaved op by op; then whole vectors one at a time; the last n % 8
// elements are one masked vector iteration (AVX2 has masked loads/stores), or with
// tail=scalar the original loop.
// CHECK-LABEL: func.func @map
// CHECK:       %[[C32:.*]] = arith.constant 32 : index
// CHECK:       %[[UB4:.*]] = arith.muli %{{.*}}, %[[C32]] : index
// CHECK:       %[[BC:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %[[UB4]] step %[[C32]] {
// CHECK-NEXT:    %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:    %[[I2:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:    %[[I3:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:    %[[A:.*]] = vector.load %{{.*}}[%[[I]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[A1:.*]] = vector.load %{{.*}}[%[[I1]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[A2:.*]] = vector.load %{{.*}}[%[[I2]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[A3:.*]] = vector.load %{{.*}}[%[[I3]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[A]], %[[BC]] : vector<8xf32>
// CHECK-NEXT:    arith.mulf %[[A1]], %[[BC]] : vector<8xf32>
// CHECK-NEXT:    arith.mulf %[[A2]], %[[BC]] : vector<8xf32>
// CHECK-NEXT:    arith.mulf %[[A3]], %[[BC]] : vector<8xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : vector<8xf32>
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    %[[C:.*]] = kvec.cmpf "ogt", %[[A]], %[[BC]] : vector<8xf32> -> vector<8xi1>
// CHECK-COUNT-3: kvec.cmpf
// CHECK-NEXT:    %[[S:.*]] = kvec.select %[[C]], %[[E]], %[[A]] : vector<8xi1>, vector<8xf32>
// CHECK-COUNT-3: kvec.select
// CHECK-NEXT:    vector.store %[[S]], %{{.*}}[%[[I]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    vector.store %{{.*}}, %{{.*}}[%[[I1]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    vector.store %{{.*}}, %{{.*}}[%[[I2]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    vector.store %{{.*}}, %{{.*}}[%[[I3]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:  }
// CHECK:       scf.for %[[J:.*]] = %[[UB4]] to %[[VUB:.*]] step %{{.*}} {
// CHECK-NEXT:    vector.load %{{.*}}[%[[J]]] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    math.exp %{{.*}} : vector<8xf32>
// CHECK:         vector.store
// CHECK-NEXT:  }
// CHECK:       scf.for %[[T:.*]] = %[[VUB]] to %[[N:.*]] step %{{.*}} {
// CHECK-NEXT:    %[[R:.*]] = arith.subi %[[N]], %[[T]] : index
// CHECK-NEXT:    %[[MASK:.*]] = vector.create_mask %[[R]] : vector<8xi1>
// CHECK-NEXT:    %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT:    %[[TA:.*]] = vector.maskedload %{{.*}}[%[[T]]], %[[MASK]], %[[Z]] : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK:         math.exp %{{.*}} : vector<8xf32>
// CHECK:         vector.maskedstore %{{.*}}[%[[T]]], %[[MASK]], %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
// W16-LABEL: func.func @map
// W16:       vector.load {{.*}} vector<16xf32>
// W16:       vector.maskedload {{.*}} into vector<16xf32>
// W8-LABEL: func.func @map
// W8:        vector.load {{.*}} vector<8xf32>
// W8-NOT:    vector.maskedload
// W8:        math.exp %{{.*}} : f32
// SCALAR-LABEL: func.func @map
// SCALAR:       scf.for %{{.*}} step %{{.*}} {
// SCALAR:         math.exp %{{.*}} : vector<8xf32>
// SCALAR:       scf.for %{{.*}} step %{{.*}} {
// SCALAR:         math.exp %{{.*}} : vector<8xf32>
// SCALAR:       scf.for %{{.*}} step %{{.*}} {
// SCALAR-NOT:     vector
// SCALAR:         math.exp %{{.*}} : f32
func.func @map(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %m = arith.mulf %a, %two : f32
    %e = math.exp %m : f32
    %c = arith.cmpf ogt, %a, %two : f32
    %s = arith.select %c, %e, %a : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  func.return
}

// -----

// A reduction (convert-linalg-to-loops' load/combine/store of the accumulator) gets
// 8 vector accumulators, a one-vector loop, vector.reduction, then the scalar tail.
// CHECK-LABEL: func.func @row_sums
// CHECK:       scf.for %[[R:.*]] = {{.*}} {
// CHECK:         %[[INIT:.*]] = memref.load %{{.*}}[%[[R]]] : memref<?xf64>
// CHECK:         = scf.for %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>, vector<4xf64>) {
// CHECK-COUNT-8: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK:         scf.yield
// CHECK-COUNT-7: arith.addf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK:         %[[ONE:.*]] = scf.for {{.*}} -> (vector<4xf64>) {
// The masked tail: masked-off lanes contribute the identity 0.0.
// CHECK:         %[[TAIL:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ONE]]) -> (vector<4xf64>) {
// CHECK:           %[[TM:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK:           %[[TL:.*]] = vector.maskedload %{{.*}}, %[[TM]], %[[ZERO:.*]] : memref<?x?xf64>, vector<4xi1>, vector<4xf64> into vector<4xf64>
// CHECK-NEXT:      %[[SEL:.*]] = kvec.select %[[TM]], %[[TL]], %[[ZERO]] : vector<4xi1>, vector<4xf64>
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[ACC]], %[[SEL]] : vector<4xf64>
// CHECK-NEXT:      scf.yield %[[ADD]] : vector<4xf64>
// CHECK:         %[[RED:.*]] = vector.reduction <add>, %[[TAIL]] : vector<4xf64> into f64
// CHECK:         %[[TOT:.*]] = arith.addf %[[INIT]], %[[RED]] : f64
// CHECK:         memref.store %[[TOT]], %{{.*}}[%[[R]]] : memref<?xf64>
// CHECK-NOT:     arith.addf %{{.*}}, %{{.*}} : f64
func.func @row_sums(%x: memref<?x?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf64>
  %m = memref.dim %x, %c1 : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x?xf64>
      %acc = memref.load %out[%i] : memref<?xf64>
      %s = arith.addf %acc, %a : f64
      memref.store %s, %out[%i] : memref<?xf64>
    }
  }
  func.return
}

// -----

// Static trip counts: a multiple of 8 has no tail at all; 10 = 8 + a masked 2.
// CHECK-LABEL: func.func @static_sizes
// CHECK:         vector.load %{{.*}} : memref<16xf32>, vector<8xf32>
// CHECK-NOT:     memref.load
// CHECK-NOT:     vector.maskedload {{.*}} memref<16xf32>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         vector.create_mask %[[TWO]] : vector<8xi1>
// CHECK:         vector.maskedload %{{.*}} : memref<10xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-NOT:     memref.load
// CHECK:         func.return
func.func @static_sizes(%x: memref<16xf32>, %y: memref<16xf32>, %u: memref<10xf32>, %v: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %a = memref.load %x[%i] : memref<16xf32>
    %e = math.exp %a : f32
    memref.store %e, %y[%i] : memref<16xf32>
  }
  scf.for %i = %c0 to %c10 step %c1 {
    %a = memref.load %u[%i] : memref<10xf32>
    %e = math.exp %a : f32
    memref.store %e, %v[%i] : memref<10xf32>
  }
  func.return
}

// -----

// Not vectorized: a strided access, an integer op, a use of the induction variable,
// and a buffer read at another position than it is written.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:   vector
// CHECK:       func.return
func.func @kept(%x: memref<?x?xf32>, %y: memref<?xi32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i, %c0] : memref<?x?xf32>
    memref.store %a, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %y[%i] : memref<?xi32>
    %b = arith.addi %a, %a : i32
    memref.store %b, %y[%i] : memref<?xi32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = arith.index_cast %i : index to i32
    %f = arith.sitofp %a : i32 to f32
    memref.store %f, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %out[%c0] : memref<?xf32>
    memref.store %a, %out[%i] : memref<?xf32>
  }
  func.return
}

// -----

// Not vectorized: NumPy's elementwise math that has no vector form in the C backend (libm
// calls: tan, rint, copysign, fmax, hypot) keeps its loop scalar, one loop per op here.
// CHECK-LABEL: func.func @libm_kept
// CHECK-NOT:   vector
// CHECK:       func.return
func.func @libm_kept(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %r = math.tan %a : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %r = math.roundeven %a : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %r = math.copysign %a, %b : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %r = arith.maxnumf %a, %b : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %r = kmath.hypot %a, %b : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  func.return
}

// -----

// np.sign's body (ordered compares and selects, NaN passed through) is lane-exact: vectorized.
// CHECK-LABEL: func.func @sign
// CHECK:       kvec.cmpf "uno"
// CHECK:       kvec.select
// CHECK:       kvec.cmpf "ogt"
// CHECK:       kvec.cmpf "olt"
// CHECK:       vector.maskedstore
func.func @sign(%x: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %zero = arith.constant 0.0 : f64
    %nan = arith.cmpf uno, %a, %a : f64
    %r0 = arith.select %nan, %a, %zero : f64
    %pos = arith.cmpf ogt, %a, %zero : f64
    %one = arith.constant 1.0 : f64
    %r1 = arith.select %pos, %one, %r0 : f64
    %neg = arith.cmpf olt, %a, %zero : f64
    %m1 = arith.constant -1.0 : f64
    %r2 = arith.select %neg, %m1, %r1 : f64
    memref.store %r2, %out[%i] : memref<?xf64>
  }
  func.return
}

// -----

// Not vectorized: a select choosing between booleans (np.where(np.where(x, y < 0, z > 0), ...),
// fuzz 1126-3676), and one with a loop-invariant boolean (np.where(np.where(x, False, y < 0),
// ...), fuzz 1126-1471): the C backend has vectors of i1 only as a comparison's mask feeding a
// select of floats (the invariant `false` was broadcast to a vector of floats).
// CHECK-LABEL: func.func @bool_select_kept
// CHECK-NOT:   vector
// CHECK-NOT:   kvec
// CHECK:       func.return
func.func @bool_select_kept(%x: memref<?xf64>, %y: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %out, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %b = memref.load %y[%i] : memref<?xf64>
    %ca = arith.cmpf une, %a, %zero : f64
    %cb = arith.cmpf olt, %b, %zero : f64
    %cc = arith.cmpf ogt, %b, %zero : f64
    %m = arith.select %ca, %cb, %cc : i1
    %r = arith.select %m, %a, %b : f64
    memref.store %r, %out[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %b = memref.load %y[%i] : memref<?xf64>
    %ca = arith.cmpf une, %a, %zero : f64
    %cb = arith.cmpf olt, %b, %zero : f64
    %m = arith.select %ca, %false, %cb : i1
    %r = arith.select %m, %a, %b : f64
    memref.store %r, %out[%i] : memref<?xf64>
  }
  func.return
}

// -----

// A masked mean's loop (np.logical_and of two comparisons, then a sum and a count under it):
// andi/ori of masks the loop computes are mask logic on vectors; one of a loop-invariant
// boolean keeps the loop scalar (it would need a broadcast to a mask).
// CHECK-LABEL: func.func @mask_logic
// CHECK:       scf.for
// CHECK:         %[[LO:.*]] = kvec.cmpf "oge", %{{.*}}, %{{.*}} : vector<4xf64> -> vector<4xi1>
// CHECK:         %[[HI:.*]] = kvec.cmpf "olt", %{{.*}}, %{{.*}} : vector<4xf64> -> vector<4xi1>
// CHECK:         %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : vector<4xi1>
// CHECK:         %[[OR:.*]] = arith.ori %[[IN]], %[[LO]] : vector<4xi1>
// CHECK:         kvec.select %[[IN]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK:         kvec.select %[[OR]], %{{.*}}, %{{.*}} : vector<4xi1>, vector<4xf64>
// CHECK:       vector.reduction <add>
// CHECK:       vector.reduction <add>
// CHECK:       scf.for
// CHECK-NOT:     vector
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:       func.return
func.func @mask_logic(%x: memref<?xf64>, %y: memref<?xf64>, %sum: memref<f64>, %count: memref<f64>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0.25 : f64
  %hi = arith.constant 0.5 : f64
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %b = memref.load %y[%i] : memref<?xf64>
    %s = memref.load %sum[] : memref<f64>
    %k = memref.load %count[] : memref<f64>
    %ge = arith.cmpf oge, %a, %lo : f64
    %lt = arith.cmpf olt, %a, %hi : f64
    %in = arith.andi %ge, %lt : i1
    %or = arith.ori %in, %ge : i1
    %v = arith.select %in, %b, %zero : f64
    %w = arith.select %or, %one, %zero : f64
    %s2 = arith.addf %s, %v : f64
    %k2 = arith.addf %k, %w : f64
    memref.store %s2, %sum[] : memref<f64>
    memref.store %k2, %count[] : memref<f64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %ge = arith.cmpf oge, %a, %lo : f64
    %in = arith.andi %ge, %flag : i1
    %v = arith.select %in, %a, %zero : f64
    memref.store %v, %y[%i] : memref<?xf64>
  }
  func.return
}

// -----

// A uniform computation of another float width (an f64 learning rate cast to f32 for an f32
// update, `w - float32(lr) * g`) stays scalar inside the vector loop, then a broadcast: the
// loop is vectorized on f32 (mixed widths disqualified it before).
// CHECK-LABEL: func.func @uniform_cast
// CHECK:       scf.for
// CHECK-NEXT:    vector.load %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[LR:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %[[LR]] : f64 to f32
// CHECK-NEXT:    %[[G:.*]] = vector.load %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:    %[[BC:.*]] = vector.broadcast %[[T]] : f32 to vector<8xf32>
// CHECK-NEXT:    arith.mulf %[[BC]], %[[G]] : vector<8xf32>
func.func @uniform_cast(%w: memref<?xf32>, %g: memref<?xf32>, %lr: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %w, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %w[%i] : memref<?xf32>
    %r = memref.load %lr[] : memref<f64>
    %t = arith.truncf %r : f64 to f32
    %b = memref.load %g[%i] : memref<?xf32>
    %m = arith.mulf %t, %b : f32
    %s = arith.subf %a, %m : f32
    memref.store %s, %w[%i] : memref<?xf32>
  }
  func.return
}

// -----

// A uniform value used by a vector op and then by another uniform computation (kiln.fuzz
// 1270-659): the later scalar op reads the scalar, not the broadcast made for the vector op.
// CHECK-LABEL: func.func @uniform_used_twice
// CHECK:       scf.for
// CHECK:         %[[E:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:         %[[BC:.*]] = vector.broadcast %[[E]] : f64 to vector<4xf64>
// CHECK:         arith.mulf %{{.*}}, %[[BC]] : vector<4xf64>
// CHECK:         arith.mulf %{{.*}}, %[[E]] : f64
func.func @uniform_used_twice(%x: memref<?xf64>, %s: memref<f32>, %k: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %r = memref.load %s[] : memref<f32>
    %e = arith.extf %r : f32 to f64
    %m = arith.mulf %a, %e : f64
    %q = memref.load %k[] : memref<f64>
    %u = arith.mulf %q, %e : f64
    %v = arith.addf %m, %u : f64
    memref.store %v, %x[%i] : memref<?xf64>
  }
  func.return
}
