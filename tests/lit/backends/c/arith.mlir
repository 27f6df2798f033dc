// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

func.func @ints(%a: i32, %b: i32, %x: i64, %p: i1) -> i32 {
  %c3 = arith.constant 3 : i32
  %s = arith.addi %a, %b : i32
  %d = arith.subi %s, %c3 : i32
  %m = arith.muli %d, %b : i32
  %q = arith.divsi %m, %b : i32
  %qu = arith.divui %m, %b : i32
  %r = arith.remsi %q, %b : i32
  %ru = arith.remui %qu, %b : i32
  %f = arith.floordivsi %r, %b : i32
  %cd = arith.ceildivsi %f, %b : i32
  %an = arith.andi %cd, %ru : i32
  %o = arith.ori %an, %a : i32
  %xo = arith.xori %o, %b : i32
  %sl = arith.shli %xo, %c3 : i32
  %sr = arith.shrsi %sl, %c3 : i32
  %su = arith.shrui %sr, %c3 : i32
  %mx = arith.maxsi %su, %a : i32
  %mn = arith.minui %mx, %b : i32
  %pb = arith.xori %p, %p : i1
  %sel = arith.select %pb, %mn, %a : i32
  %t = arith.trunci %x : i64 to i32
  %e = arith.extsi %t : i32 to i64
  %u = arith.extui %t : i32 to i64
  %eu = arith.addi %e, %u : i64
  %i = arith.index_cast %eu : i64 to index
  %j = arith.index_cast %i : index to i32
  %res = arith.addi %sel, %j : i32
  func.return %res : i32
}

// CHECK:      #include <math.h>
// CHECK-NOT:  immintrin
// CHECK-LABEL: int32_t ints(int32_t a, int32_t b, int64_t x, bool p) {
// CHECK-NEXT:   int32_t s = a + b;
// CHECK-NEXT:   int32_t d = s - 3;
// CHECK-NEXT:   int32_t m = d * b;
// CHECK-NEXT:   int32_t q = m / b;
// CHECK-NEXT:   int32_t qu = (int32_t)((uint32_t)m / (uint32_t)b);
// CHECK-NEXT:   int32_t r = q % b;
// CHECK-NEXT:   int32_t ru = (int32_t)((uint32_t)qu % (uint32_t)b);
// CHECK-NEXT:   int32_t f = r / b - (r % b != 0 && (r < 0) != (b < 0));
// CHECK-NEXT:   int32_t cd = f / b + (f % b != 0 && (f < 0) == (b < 0));
// CHECK-NEXT:   int32_t an = cd & ru;
// CHECK-NEXT:   int32_t o = an | a;
// CHECK-NEXT:   int32_t xo = o ^ b;
// CHECK-NEXT:   int32_t sl = (int32_t)((uint32_t)xo << (uint32_t)3);
// CHECK-NEXT:   int32_t sr = sl >> 3;
// CHECK-NEXT:   int32_t su = (int32_t)((uint32_t)sr >> (uint32_t)3);
// CHECK-NEXT:   int32_t mx = su > a ? su : a;
// CHECK-NEXT:   int32_t mn = (uint32_t)mx < (uint32_t)b ? mx : b;
// CHECK-NEXT:   bool pb = p ^ p;
// CHECK-NEXT:   int32_t sel = pb ? mn : a;
// CHECK-NEXT:   int32_t t = (int32_t)x;
// CHECK-NEXT:   int64_t e = (int64_t)t;
// CHECK-NEXT:   int64_t u = (int64_t)(uint32_t)t;
// CHECK-NEXT:   int64_t eu = e + u;
// CHECK-NEXT:   int64_t i = (int64_t)eu;
// CHECK-NEXT:   int32_t j = (int32_t)i;
// CHECK-NEXT:   int32_t res = sel + j;
// CHECK-NEXT:   return res;
// CHECK-NEXT: }

func.func @floats(%a: f32, %b: f32, %x: f64) -> f64 {
  %c = arith.constant 1.5 : f32
  %s = arith.addf %a, %c : f32
  %d = arith.subf %s, %b : f32
  %m = arith.mulf %d, %b : f32
  %q = arith.divf %m, %b : f32
  %n = arith.negf %q : f32
  %mx = arith.maximumf %n, %a : f32
  %mn = arith.minnumf %mx, %b : f32
  %e = arith.extf %mn : f32 to f64
  %y = arith.addf %e, %x : f64
  %t = arith.truncf %y : f64 to f32
  %i = arith.fptosi %t : f32 to i32
  %u = arith.fptoui %t : f32 to i32
  %fi = arith.sitofp %i : i32 to f64
  %fu = arith.uitofp %u : i32 to f64
  %bits = arith.bitcast %t : f32 to i32
  %back = arith.bitcast %bits : i32 to f32
  %back64 = arith.extf %back : f32 to f64
  %r0 = arith.addf %fi, %fu : f64
  %r = arith.addf %r0, %back64 : f64
  func.return %r : f64
}

// CHECK-LABEL: double floats(float a, float b, double x) {
// CHECK-NEXT:   float s = a + 1.5f;
// CHECK-NEXT:   float d = s - b;
// CHECK-NEXT:   float m = d * b;
// CHECK-NEXT:   float q = m / b;
// CHECK-NEXT:   float n = -q;
// CHECK-NEXT:   float mx = kiln_maximumf(n, a);
// CHECK-NEXT:   float mn = fminf(mx, b);
// CHECK-NEXT:   double e = (double)mn;
// CHECK-NEXT:   double y = e + x;
// CHECK-NEXT:   float t = (float)y;
// CHECK-NEXT:   int32_t i = (int32_t)t;
// CHECK-NEXT:   int32_t u = (int32_t)(uint32_t)t;
// CHECK-NEXT:   double fi = (double)i;
// CHECK-NEXT:   double fu = (double)(uint32_t)u;
// CHECK-NEXT:   int32_t bits = ((union { float from; int32_t to; }){.from = t}).to;
// CHECK-NEXT:   float back = ((union { int32_t from; float to; }){.from = bits}).to;

func.func @compare(%a: f32, %b: f32, %i: i64, %j: i64) -> i1 {
  %0 = arith.cmpf oeq, %a, %b : f32
  %1 = arith.cmpf one, %a, %b : f32
  %2 = arith.cmpf ueq, %a, %b : f32
  %3 = arith.cmpf une, %a, %b : f32
  %4 = arith.cmpf ord, %a, %b : f32
  %5 = arith.cmpf uno, %a, %b : f32
  %6 = arith.cmpf ult, %a, %b : f32
  %7 = arith.cmpi slt, %i, %j : i64
  %8 = arith.cmpi ult, %i, %j : i64
  %r0 = arith.andi %0, %1 : i1
  %r1 = arith.ori %r0, %2 : i1
  %r2 = arith.ori %r1, %3 : i1
  %r3 = arith.ori %r2, %4 : i1
  %r4 = arith.ori %r3, %5 : i1
  %r5 = arith.ori %r4, %6 : i1
  %r6 = arith.ori %r5, %7 : i1
  %r7 = arith.ori %r6, %8 : i1
  func.return %r7 : i1
}

// CHECK-LABEL: bool compare(float a, float b, int64_t i, int64_t j) {
// CHECK-NEXT:   bool v = a == b;
// CHECK-NEXT:   bool v_1 = __builtin_islessgreater(a, b);
// CHECK-NEXT:   bool v_2 = !__builtin_islessgreater(a, b);
// CHECK-NEXT:   bool v_3 = a != b;
// CHECK-NEXT:   bool v_4 = !__builtin_isunordered(a, b);
// CHECK-NEXT:   bool v_5 = __builtin_isunordered(a, b);
// CHECK-NEXT:   bool v_6 = !__builtin_isgreaterequal(a, b);
// CHECK-NEXT:   bool v_7 = i < j;
// CHECK-NEXT:   bool v_8 = (uint64_t)i < (uint64_t)j;
