// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s
// RUN: kiln-opt %s -p graph-to-c -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// graph.check -> krt.check -> an early return that leaves the message for kiln_take_error,
// placed between the two prints it is ordered with (docs/abi.md, "Run-time errors").

// CHECK: static __thread const char *kiln_failed;
// CHECK: const char *kiln_take_error(void) {
// CHECK-LABEL: void lengths({{.*}}) {
// CHECK:         kiln_put(&{{.*}}, "before", 6);
// CHECK:         if (!{{.*}}) {
// CHECK-NEXT:      kiln_failed = "f.py:3:7: lengths differ";
// CHECK-NEXT:      return;
// CHECK-NEXT:    }
// CHECK:         kiln_put(&{{.*}}, "after", 5);
func.func @lengths(%x: tensor<?xf64>, %y: tensor<5xf64>) -> tensor<f64> {
  graph.print "before"
  %n = graph.dim %x, 0 : tensor<?xf64> -> tensor<i64>
  %five = graph.constant dense<5> : tensor<i64>
  %ok = graph.cmp "eq", %n, %five : tensor<i64> -> tensor<i1>
  graph.check %ok, "f.py:3:7: lengths differ" : tensor<i1>
  graph.print "after"
  %b = graph.broadcast %x : tensor<?xf64> -> tensor<5xf64>
  %s = graph.add %b, %y : tensor<5xf64>
  %r = graph.reduce "sum", %s axes array<i64: 0> : tensor<5xf64> -> tensor<f64>
  func.return %r : tensor<f64>
}
