// RUN: kiln-opt %s -p buffer-to-loops -t c | filecheck %s
// RUN: kiln-opt %s -p buffer-to-loops -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// A kept call of a function that can fail a run-time check (docs/abi.md, "Run-time errors"):
// buffer-to-loops, since graph-to-c's graph-inline-calls inlines a callee with effects.

// A function with a scalar result returns 0 from a failed check; its caller returns too.
// CHECK-LABEL: static int64_t callee({{.*}}) {
// CHECK:         if (!*ok) {
// CHECK-NEXT:      kiln_failed = "g.py:1:1: no";
// CHECK-NEXT:      return 0;
// CHECK-LABEL: void caller({{.*}}) {
// CHECK:         int64_t {{.*}} = callee(
// CHECK-NEXT:    if (kiln_failed) return;
func.func private @callee(%ok: memref<i1>) -> i64 {
  krt.check %ok, "g.py:1:1: no" : memref<i1>
  %c = arith.constant 1 : i64
  func.return %c : i64
}
func.func @caller(%ok: memref<i1>, %out: memref<i64>) {
  %v = func.call @callee(%ok) : (memref<i1>) -> i64
  memref.store %v, %out[] : memref<i64>
  func.return
}
