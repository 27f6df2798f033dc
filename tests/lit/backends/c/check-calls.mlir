// RUN: kiln-opt %s -p buffer-to-loops -t c | filecheck %s
// RUN: kiln-opt %s -p buffer-to-loops -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// A kept call of a function that can fail a run-time check (docs/abi.md, "Run-time errors"):
// buffer-to-loops, since graph-to-c's graph-inline-calls inlines a callee with effects.

// A function with a scalar result returns a zero from a failed check; its caller returns too.
// CHECK-LABEL: static int64_t callee({{.*}}) {
// CHECK:         if (!*ok) {
// CHECK-NEXT:      kiln_failed = "g.py:1:1: no";
// CHECK-NEXT:      return (int64_t){0};
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

// A part returning a vector (kiln-outline-parts) returns a zero vector from a failed check: `return 0;`
// was not valid C for `kiln_v8f64` (kiln.fuzz --mode grad 17400-68).
// CHECK-LABEL: static kiln_v8f64 vector_part({{.*}}) {
// CHECK:         if (!*ok) {
// CHECK-NEXT:      kiln_failed = "g.py:2:1: no";
// CHECK-NEXT:      return (kiln_v8f64){0};
func.func private @vector_part(%ok: memref<i1>, %v: vector<8xf64>) -> vector<8xf64> {
  krt.check %ok, "g.py:2:1: no" : memref<i1>
  func.return %v : vector<8xf64>
}
func.func @vector_caller(%ok: memref<i1>, %out: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %z = vector.load %out[%c0] : memref<8xf64>, vector<8xf64>
  %v = func.call @vector_part(%ok, %z) : (memref<i1>, vector<8xf64>) -> vector<8xf64>
  vector.store %v, %out[%c0] : memref<8xf64>, vector<8xf64>
  func.return
}
