// RUN: kiln-opt %s -p 'kiln-outline-parts{min-ops=0 chunk-ops=8 parts=2}' | filecheck %s
// RUN: kiln-opt %s -p 'kiln-outline-parts{min-ops=0 chunk-ops=8 parts=2}' -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p 'kiln-outline-parts{min-ops=0 chunk-ops=8 parts=2}' -t c | filecheck %s --check-prefix=VEC
// RUN: kiln-opt %s -p kiln-outline-parts | filecheck %s --check-prefix=SMALL

// Runs of about 8 ops move into functions of their own: buffers cross as arguments, constants
// and views are cloned in, a scalar comes back as a result, an allocation the rest of the
// function uses stays before the call. A memref that is not a buffer of its own (the scf.if's)
// cannot cross: the run that defines it and the one that uses it become one.
// CHECK-LABEL: func.func @big(%x: memref<8xf64>, %y: memref<8xf64>, %flag: i1) -> f64 {
// CHECK-NEXT:    %tmp = memref.alloc() : memref<8xf64>
// CHECK-NEXT:    func.call @big_part0(%x, %tmp) : (memref<8xf64>, memref<8xf64>) -> ()
// CHECK-NEXT:    %out = memref.alloc() : memref<8xf64>
// CHECK-NEXT:    func.call @big_part1(%tmp, %out) : (memref<8xf64>, memref<8xf64>) -> ()
// CHECK-NEXT:    %sum = func.call @big_part2(%out, %y, %tmp, %flag, %x) : (memref<8xf64>, memref<8xf64>, memref<8xf64>, i1, memref<8xf64>) -> f64
// CHECK-NEXT:    func.return %sum : f64
// CHECK:       func.func private @big_part0(%x: memref<8xf64>, %tmp: memref<8xf64>) attributes {kiln.part = 1 : i64} {
// CHECK:         %two = arith.constant 2.000000e+00 : f64
// CHECK:         arith.mulf
// CHECK:       func.func private @big_part1(%tmp: memref<8xf64>, %out: memref<8xf64>) attributes {kiln.part = 1 : i64} {
// CHECK:         %view = memref.subview %tmp[2] [4] [1]
// CHECK:         %first = memref.load %view[%c0]
// CHECK:       func.func private @big_part2({{.*}}) -> f64 attributes {kiln.part = 0 : i64} {
// CHECK:         %sum = scf.for
// CHECK:         memref.dealloc %tmp
// CHECK:         %pick = scf.if %flag -> (memref<8xf64>) {
// CHECK:         memref.load %pick
// CHECK:         func.return %sum : f64

// Each outlined function is in its group's section of the C; the public one in the main one.
// C:       void big_part0(double *restrict x, double *restrict tmp);
// C:       #if !defined(KILN_SPLIT) || defined(KILN_PART_MAIN)
// C-NEXT:  __attribute__((visibility("default")))
// C-NEXT:  double big(double *restrict x, double *restrict y, bool flag) {
// C:       #endif
// C:       #if !defined(KILN_SPLIT) || defined(KILN_PART_1)
// C-NEXT:  void big_part0(double *restrict x, double *restrict tmp) {
// C:       #endif

// Below min-ops (1500 by default) nothing changes.
// SMALL-NOT: func.call
func.func @big(%x: memref<8xf64>, %y: memref<8xf64>, %flag: i1) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f64
  %tmp = memref.alloc() : memref<8xf64>
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %x[%i] : memref<8xf64>
    %b = arith.mulf %a, %two : f64
    memref.store %b, %tmp[%i] : memref<8xf64>
  }
  %view = memref.subview %tmp[2] [4] [1] : memref<8xf64> to memref<4xf64, strided<[1], offset: 2>>
  %first = memref.load %view[%c0] : memref<4xf64, strided<[1], offset: 2>>
  %out = memref.alloc() : memref<8xf64>
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %tmp[%i] : memref<8xf64>
    %b = arith.addf %a, %first : f64
    memref.store %b, %out[%i] : memref<8xf64>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %two) -> (f64) {
    %a = memref.load %out[%i] : memref<8xf64>
    %b = arith.addf %acc, %a : f64
    scf.yield %b : f64
  }
  "memref.copy"(%out, %y) : (memref<8xf64>, memref<8xf64>) -> ()
  memref.dealloc %tmp : memref<8xf64>
  %pick = scf.if %flag -> (memref<8xf64>) {
    scf.yield %out : memref<8xf64>
  } else {
    scf.yield %x : memref<8xf64>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    %a = memref.load %pick[%i] : memref<8xf64>
    %b = arith.addf %a, %two : f64
    %c = arith.mulf %b, %two : f64
    %d = arith.mulf %c, %two : f64
    memref.store %d, %y[%i] : memref<8xf64>
  }
  memref.dealloc %out : memref<8xf64>
  func.return %sum : f64
}

// A run ends only where no vector of it is still to be used: a reduction loop's partial sums and
// their combination stay in one part (cut between them, neither side could be outlined, and 600
// row sums stayed one function).
// CHECK-LABEL: func.func @sums(%x: memref<3x16xf64>, %out: memref<3xf64>) {
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %r0 = func.call @sums_part0(%x) : (memref<3x16xf64>) -> f64
// CHECK-NEXT:    %r1 = func.call @sums_part1(%out, %r0, %x) : (memref<3xf64>, f64, memref<3x16xf64>) -> f64
// CHECK-NEXT:    %r2 = func.call @sums_part2(%out, %r1, %x) : (memref<3xf64>, f64, memref<3x16xf64>) -> f64
// CHECK-NEXT:    memref.store %r2, %out[%c2] : memref<3xf64>
// CHECK:       func.func private @sums_part0(%x: memref<3x16xf64>) -> f64
// CHECK:         %a0, %b0 = scf.for
// CHECK:         %s0 = arith.addf %a0, %b0 : vector<8xf64>
// CHECK-NEXT:    %r0 = vector.reduction <add>, %s0 : vector<8xf64> into f64
// CHECK-NEXT:    func.return %r0 : f64
func.func @sums(%x: memref<3x16xf64>, %out: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %z = vector.broadcast %zero : f64 to vector<8xf64>
  %a0, %b0 = scf.for %i = %c0 to %c16 step %c16 iter_args(%p = %z, %q = %z) -> (vector<8xf64>, vector<8xf64>) {
    %i8 = arith.addi %i, %c8 : index
    %v = vector.load %x[%c0, %i] : memref<3x16xf64>, vector<8xf64>
    %w = vector.load %x[%c0, %i8] : memref<3x16xf64>, vector<8xf64>
    %p2 = arith.addf %p, %v : vector<8xf64>
    %q2 = arith.addf %q, %w : vector<8xf64>
    scf.yield %p2, %q2 : vector<8xf64>, vector<8xf64>
  }
  %s0 = arith.addf %a0, %b0 : vector<8xf64>
  %r0 = vector.reduction <add>, %s0 : vector<8xf64> into f64
  memref.store %r0, %out[%c0] : memref<3xf64>
  %a1, %b1 = scf.for %i = %c0 to %c16 step %c16 iter_args(%p = %z, %q = %z) -> (vector<8xf64>, vector<8xf64>) {
    %i8 = arith.addi %i, %c8 : index
    %v = vector.load %x[%c1, %i] : memref<3x16xf64>, vector<8xf64>
    %w = vector.load %x[%c1, %i8] : memref<3x16xf64>, vector<8xf64>
    %p2 = arith.addf %p, %v : vector<8xf64>
    %q2 = arith.addf %q, %w : vector<8xf64>
    scf.yield %p2, %q2 : vector<8xf64>, vector<8xf64>
  }
  %s1 = arith.addf %a1, %b1 : vector<8xf64>
  %r1 = vector.reduction <add>, %s1 : vector<8xf64> into f64
  memref.store %r1, %out[%c1] : memref<3xf64>
  %a2, %b2 = scf.for %i = %c0 to %c16 step %c16 iter_args(%p = %z, %q = %z) -> (vector<8xf64>, vector<8xf64>) {
    %i8 = arith.addi %i, %c8 : index
    %v = vector.load %x[%c2, %i] : memref<3x16xf64>, vector<8xf64>
    %w = vector.load %x[%c2, %i8] : memref<3x16xf64>, vector<8xf64>
    %p2 = arith.addf %p, %v : vector<8xf64>
    %q2 = arith.addf %q, %w : vector<8xf64>
    scf.yield %p2, %q2 : vector<8xf64>, vector<8xf64>
  }
  %s2 = arith.addf %a2, %b2 : vector<8xf64>
  %r2 = vector.reduction <add>, %s2 : vector<8xf64> into f64
  memref.store %r2, %out[%c2] : memref<3xf64>
  func.return
}

// A fused loop's body that is one chain of vector ops (no cut where no vector is live) is cut
// past 2 * chunk-ops ops anyway: the running vector is returned and passed by value. The
// broadcast constant is cloned in; the chain's ops are neither cloned nor hoisted; the constants
// left before the loop (used by nothing now) are pure ops alone, not worth a part of their own.
// CHECK-LABEL: func.func @chain(%x: memref<16xf64>, %out: memref<16xf64>) {
// CHECK:         %t = vector.broadcast %two : f64 to vector<8xf64>
// CHECK-NEXT:    scf.for %i = %c0 to %c16 step %c8 {
// CHECK-NEXT:      %m7 = func.call @chain_part1(%i, %x) : (index, memref<16xf64>) -> vector<8xf64>
// CHECK-NEXT:      func.call @chain_part2(%m7, %i, %out) : (vector<8xf64>, index, memref<16xf64>) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NOT:   @chain_part0
// CHECK:       func.func private @chain_part1(%i: index, %x: memref<16xf64>) -> vector<8xf64>
// CHECK-NEXT:    %two = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %t = vector.broadcast %two : f64 to vector<8xf64>
// CHECK-NEXT:    %v = vector.load %x[%i] : memref<16xf64>, vector<8xf64>
// CHECK-NEXT:    %m0 = arith.mulf %v, %t : vector<8xf64>
// CHECK:         %m7 = arith.mulf %a6, %t : vector<8xf64>
// CHECK-NEXT:    func.return %m7 : vector<8xf64>
// CHECK:       func.func private @chain_part2(%m7: vector<8xf64>, %i: index, %out: memref<16xf64>)
// CHECK:         %a7 = arith.addf %m7, %t : vector<8xf64>
// CHECK:         vector.store %a10, %out[%i]
// CHECK-NEXT:    func.return

// In C the vector crosses as the ISA's vector type (kiln_v8f64: __m512d or two __m256d), by value.
// VEC:     kiln_v8f64 chain_part1(int64_t i, double *restrict x);
// VEC-NEXT: void chain_part2(kiln_v8f64 m7, int64_t i, double *restrict out);
// VEC:     kiln_v8f64 m7 = chain_part1(i, x);
// VEC-NEXT: chain_part2(m7, i, out);
// VEC:     kiln_v8f64 chain_part1(int64_t i, double *restrict x) {
// VEC:     void chain_part2(kiln_v8f64 m7, int64_t i, double *restrict out) {
func.func @chain(%x: memref<16xf64>, %out: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f64
  %t = vector.broadcast %two : f64 to vector<8xf64>
  scf.for %i = %c0 to %c16 step %c8 {
    %v = vector.load %x[%i] : memref<16xf64>, vector<8xf64>
    %m0 = arith.mulf %v, %t : vector<8xf64>
    %a0 = arith.addf %m0, %t : vector<8xf64>
    %m1 = arith.mulf %a0, %t : vector<8xf64>
    %a1 = arith.addf %m1, %t : vector<8xf64>
    %m2 = arith.mulf %a1, %t : vector<8xf64>
    %a2 = arith.addf %m2, %t : vector<8xf64>
    %m3 = arith.mulf %a2, %t : vector<8xf64>
    %a3 = arith.addf %m3, %t : vector<8xf64>
    %m4 = arith.mulf %a3, %t : vector<8xf64>
    %a4 = arith.addf %m4, %t : vector<8xf64>
    %m5 = arith.mulf %a4, %t : vector<8xf64>
    %a5 = arith.addf %m5, %t : vector<8xf64>
    %m6 = arith.mulf %a5, %t : vector<8xf64>
    %a6 = arith.addf %m6, %t : vector<8xf64>
    %m7 = arith.mulf %a6, %t : vector<8xf64>
    %a7 = arith.addf %m7, %t : vector<8xf64>
    %m8 = arith.mulf %a7, %t : vector<8xf64>
    %a8 = arith.addf %m8, %t : vector<8xf64>
    %m9 = arith.mulf %a8, %t : vector<8xf64>
    %a9 = arith.addf %m9, %t : vector<8xf64>
    %m10 = arith.mulf %a9, %t : vector<8xf64>
    %a10 = arith.addf %m10, %t : vector<8xf64>
    vector.store %a10, %out[%i] : memref<16xf64>, vector<8xf64>
  }
  func.return
}
