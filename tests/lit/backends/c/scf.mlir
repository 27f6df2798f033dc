// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

func.func @collatz(%n0: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %res:2 = scf.while (%n = %n0, %steps = %c0) : (i64, i64) -> (i64, i64) {
    %go = arith.cmpi sgt, %n, %c1 : i64
    scf.condition(%go) %n, %steps : i64, i64
  } do {
  ^bb0(%m: i64, %s: i64):
    %r = arith.remsi %m, %c2 : i64
    %even = arith.cmpi eq, %r, %c0 : i64
    %next = scf.if %even -> (i64) {
      %h = arith.divsi %m, %c2 : i64
      scf.yield %h : i64
    } else {
      %t = arith.muli %m, %c3 : i64
      %t1 = arith.addi %t, %c1 : i64
      scf.yield %t1 : i64
    }
    %s1 = arith.addi %s, %c1 : i64
    scf.yield %next, %s1 : i64, i64
  }
  func.return %res#1 : i64
}
// CHECK-LABEL: int64_t collatz(int64_t n0) {
// CHECK-NEXT:   int64_t n = n0;
// CHECK-NEXT:   int64_t steps = 0;
// CHECK-NEXT:   int64_t res;
// CHECK-NEXT:   int64_t res_1;
// CHECK-NEXT:   while (1) {
// CHECK-NEXT:     bool go = n > 1;
// CHECK-NEXT:     res = n;
// CHECK-NEXT:     res_1 = steps;
// CHECK-NEXT:     if (!go) break;
// CHECK-NEXT:     int64_t r = res % 2;
// CHECK-NEXT:     bool even = r == 0;
// CHECK-NEXT:     int64_t next;
// CHECK-NEXT:     if (even) {
// CHECK-NEXT:       int64_t h = res / 2;
// CHECK-NEXT:       next = h;
// CHECK-NEXT:     } else {
// CHECK-NEXT:       int64_t t = res * 3;
// CHECK-NEXT:       int64_t t1 = t + 1;
// CHECK-NEXT:       next = t1;
// CHECK-NEXT:     }
// CHECK-NEXT:     int64_t s1 = res_1 + 1;
// CHECK-NEXT:     n = next;
// CHECK-NEXT:     steps = s1;
// CHECK-NEXT:   }
// CHECK-NEXT:   return res_1;
// CHECK-NEXT: }

func.func @fib(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = arith.constant 0 : i64
  %b0 = arith.constant 1 : i64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0) -> (i64, i64) {
    %s = arith.addi %a, %b : i64
    scf.yield %b, %s : i64, i64
  }
  func.return %r#0 : i64
}
// CHECK-LABEL: int64_t fib(int64_t n) {
// CHECK-NEXT:   int64_t r = 0;
// CHECK-NEXT:   int64_t r_1 = 1;
// CHECK-NEXT:   for (int64_t i = 0; i < n; i += 1) {
// CHECK-NEXT:     int64_t s = r + r_1;
// CHECK-NEXT:     int64_t r_next = r_1;
// CHECK-NEXT:     int64_t r_1_next = s;
// CHECK-NEXT:     r = r_next;
// CHECK-NEXT:     r_1 = r_1_next;
// CHECK-NEXT:   }
// CHECK-NEXT:   return r;

func.func @psum(%x: memref<4x8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %s = "scf.parallel"(%c0, %c0, %c4, %c8, %c1, %c1, %z) <{operandSegmentSizes = array<i32: 2, 2, 2, 1>}> ({
  ^bb0(%i: index, %j: index):
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    scf.reduce(%v : f32) {
    ^bb1(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }) : (index, index, index, index, index, index, f32) -> f32
  func.return %s : f32
}
// CHECK-LABEL: float psum(float *restrict x) {
// CHECK-NEXT:   float s = 0.0f;
// CHECK-NEXT:   /* parallel loop (run sequentially) */
// CHECK-NEXT:   for (int64_t i = 0; i < 4; i += 1) {
// CHECK-NEXT:     for (int64_t j = 0; j < 8; j += 1) {
// CHECK-NEXT:       float v = x[i*8 + j];
// CHECK-NEXT:       {
// CHECK-NEXT:         float t = s + v;
// CHECK-NEXT:         s = t;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   return s;

func.func @pick(%k: index, %a: f64) -> f64 {
  %r = scf.index_switch %k -> f64
  case 1 {
    %d = arith.addf %a, %a : f64
    scf.yield %d : f64
  }
  default {
    scf.yield %a : f64
  }
  func.return %r : f64
}
// CHECK-LABEL: double pick(int64_t k, double a) {
// CHECK-NEXT:   double r;
// CHECK-NEXT:   switch (k) {
// CHECK-NEXT:     case 1: {
// CHECK-NEXT:       double d = a + a;
// CHECK-NEXT:       r = d;
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-NEXT:     default: {
// CHECK-NEXT:       r = a;
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   return r;
