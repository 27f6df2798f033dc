// RUN: kiln-opt %s -p 'graph-autodiff{func="f" wrt=0}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-autodiff{func="f" wrt=0},graph-to-c' -t c | filecheck %s --check-prefix=C

// The gradient flows through a call: the callee's ops are computed again on the call's operand
// where the gradient is built, and reversed (d/dx sum(sin(x) * x) = cos(x) * x + sin(x)).
// CHECK-LABEL: func.func @f_grad(%x: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>)
// CHECK:         %[[Y:.*]] = func.call @g(%x)
// CHECK:         %[[S:.*]] = graph.reduce "sum", %[[Y]]
// CHECK:         %[[SIN:.*]] = graph.sin %x
// CHECK:         %{{.*}} = graph.mul %[[SIN]], %x
// CHECK:         %[[DX:.*]] = graph.mul %[[SEED:.*]], %x
// CHECK:         %[[DSIN:.*]] = graph.mul %[[SEED]], %[[SIN]]
// CHECK:         %[[COS:.*]] = graph.cos %x
// CHECK:         %[[T:.*]] = graph.mul %[[DX]], %[[COS]]
// CHECK:         %[[G:.*]] = graph.add %[[DSIN]], %[[T]]
// CHECK:         func.return %[[S]], %[[G]] : tensor<f64>, tensor<4xf64>
// The calls are inlined when lowered: the C has no function g.
// C-NOT: void g(
// C: void f(
// C-NOT: void g(
// C: void f_grad(
// C-NOT: void g(
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %y = func.call @g(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %s = graph.reduce "sum", %y axes array<i64: 0> : tensor<4xf64> -> tensor<f64>
  func.return %s : tensor<f64>
}
func.func private @g(%a: tensor<4xf64>) -> tensor<4xf64> {
  %b = graph.sin %a : tensor<4xf64>
  %c = graph.mul %b, %a : tensor<4xf64>
  func.return %c : tensor<4xf64>
}
