// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s
// RUN: kiln-opt %s -p graph-to-c -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// graph.print -> krt.print -> one buffer of text handed to kiln_write_hook, inside a
// while loop whose condition comes from a cond; docs/printing.md.

// CHECK: __attribute__((visibility("default"))) kiln_write_fn kiln_write_hook = kiln_write_stdout;
// CHECK-LABEL: void count(
// CHECK:         while (1) {
// CHECK:           kiln_buf [[B:.*]] = {0};
// CHECK-NEXT:      kiln_put(&[[B]], "i = ", 4);
// CHECK-NEXT:      kiln_fmt_value(&[[B]], (const void *){{.*}}, 4, 0, NULL, NULL);
// CHECK-NEXT:      kiln_put(&[[B]], " x = ", 5);
// CHECK-NEXT:      kiln_fmt_value(&[[B]], (const void *){{.*}}, 5, 1, (const int64_t[]){3}, (const int64_t[]){1});
// CHECK-NEXT:      kiln_put(&[[B]], " {}\012", 4);
// CHECK-NEXT:      kiln_flush(&[[B]]);
func.func @count(%n: tensor<i64>, %x: tensor<3xf32>) {
  %w = graph.while (%n) : (tensor<i64>) -> (tensor<i64>) cond {
  ^bb0(%i: tensor<i64>):
    %z = graph.constant dense<0> : tensor<i64>
    %c = graph.cmp "gt", %i, %z : tensor<i64> -> tensor<i1>
    graph.condition %c, %i : tensor<i64>
  } do {
  ^bb0(%i: tensor<i64>):
    graph.print "i = {} x = {} {{}}\n" (%i, %x : tensor<i64>, tensor<3xf32>)
    %one = graph.constant dense<1> : tensor<i64>
    %j = graph.sub %i, %one : tensor<i64>
    graph.yield %j : tensor<i64>
  }
  func.return
}
