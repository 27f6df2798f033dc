// RUN: kiln-opt %s -t c > %t.c
// RUN: filecheck %s < %t.c
// RUN: cc -c -O2 -Wall -Werror -fwrapv %t.c -o %t.o

// An integer arith.select marked kiln.branchless (kiln-if-to-select) is a test and a
// conditional move, kiln_select_mask(x, m, a, b) = (x & m) != 0 ? a : b: gcc compiles even
// a ternary of two computed values to a branch. A condition (x & c) == 0 or != 0, or
// x == 0, is tested in place rather than first computed as a bool.
// CHECK:       static inline int64_t kiln_select_mask(int64_t x, int64_t m, int64_t a, int64_t b) {
// CHECK:         __asm__("testq %2, %1\n\tcmovneq %3, %0"
// CHECK-LABEL: {{^}}int64_t selects(
// CHECK:         (void)even;
// CHECK-NEXT:    int64_t s1 = (int64_t)kiln_select_mask((int64_t)x, (int64_t)6, b, a);
// CHECK:         (void)odd;
// CHECK-NEXT:    int64_t s2 = (int64_t)kiln_select_mask((int64_t)x, (int64_t)6, a, b);
// CHECK:         (void)zero;
// CHECK-NEXT:    int32_t s3 = (int32_t)kiln_select_mask((int64_t)y, -1, b32, a32);
// CHECK-NEXT:    int64_t s4 = (int64_t)kiln_select_mask((int64_t)c, 1, a, b);
// Not marked, or not integers: a ternary.
// CHECK-NEXT:    int64_t s5 = c ? a : b;
// CHECK-NEXT:    double s6 = c ? f : g;
func.func @selects(%x: i64, %y: i32, %c: i1, %a: i64, %b: i64, %a32: i32, %b32: i32, %f: f64, %g: f64) -> (i64, i64, i32, i64, i64, f64) {
  %c0 = arith.constant 0 : i64
  %c6 = arith.constant 6 : i64
  %z32 = arith.constant 0 : i32
  %low = arith.andi %x, %c6 : i64
  %even = arith.cmpi eq, %low, %c0 : i64
  %s1 = arith.select %even, %a, %b {kiln.branchless} : i64
  %odd = arith.cmpi ne, %c0, %low : i64
  %s2 = arith.select %odd, %a, %b {kiln.branchless} : i64
  %zero = arith.cmpi eq, %y, %z32 : i32
  %s3 = arith.select %zero, %a32, %b32 {kiln.branchless} : i32
  %s4 = arith.select %c, %a, %b {kiln.branchless} : i64
  %s5 = arith.select %c, %a, %b : i64
  %s6 = arith.select %c, %f, %g {kiln.branchless} : f64
  func.return %s1, %s2, %s3, %s4, %s5, %s6 : i64, i64, i32, i64, i64, f64
}
