// RUN: kiln-opt %s -p graph-simplify | filecheck %s
// RUN: kiln-opt %s -p graph-simplify,graph-to-tensor | filecheck %s --check-prefix=TENSOR

// kiln's own rules, all files together: the chain below is x, and what is left lowers to
// nothing but the function's return. x + 0.0 stays (it is not x for x = -0.0).
// CHECK-LABEL: func.func @chain
// CHECK:         %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ZB:.*]] = graph.broadcast %[[Z]] : tensor<f32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %x, %[[ZB]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %x, %[[A]]
// TENSOR-LABEL: func.func @chain
// TENSOR:         linalg.generic
// TENSOR:           arith.addf
// TENSOR-NOT:     linalg.generic
// TENSOR:         func.return %x, %{{.*}}
func.func @chain(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %one0 = graph.constant dense<1.0> : tensor<f32>
  %one = graph.broadcast %one0 : tensor<f32> -> tensor<2x3xf32>
  %0 = graph.mul %x, %one : tensor<2x3xf32>
  %1 = graph.neg %0 : tensor<2x3xf32>
  %2 = graph.neg %1 : tensor<2x3xf32>
  %3 = graph.transpose %2 perm array<i64: 1, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
  %4 = graph.transpose %3 perm array<i64: 1, 0> : tensor<3x2xf32> -> tensor<2x3xf32>
  %5 = graph.cast %4 : tensor<2x3xf32> -> tensor<2x3xf64>
  %6 = graph.cast %5 : tensor<2x3xf64> -> tensor<2x3xf32>
  %7 = graph.maximum %6, %6 : tensor<2x3xf32>
  %8 = graph.relu %7 : tensor<2x3xf32>
  %9 = graph.relu %8 : tensor<2x3xf32>
  %c = graph.cmp "gt", %x, %9 : tensor<2x3xf32> -> tensor<2x3xi1>
  %10 = graph.select %c, %7, %7 : tensor<2x3xi1>, tensor<2x3xf32>
  %zero0 = graph.constant dense<0.0> : tensor<f32>
  %zero = graph.broadcast %zero0 : tensor<f32> -> tensor<2x3xf32>
  %11 = graph.add %10, %zero : tensor<2x3xf32>
  func.return %10, %11 : tensor<2x3xf32>, tensor<2x3xf32>
}

// Inside regions too.
// CHECK-LABEL: func.func @regions
// CHECK:         graph.cond
// CHECK-NOT:       graph.neg
// CHECK:           graph.yield %x
func.func @regions(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.cond %p -> (tensor<4xf32>) {
    %1 = graph.neg %x : tensor<4xf32>
    %2 = graph.neg %1 : tensor<4xf32>
    graph.yield %2 : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  func.return %0 : tensor<4xf32>
}
