// RUN: kiln-opt %s --rules kiln:graph-select | filecheck %s

// CHECK-LABEL: func.func @selects
// CHECK:         %[[NOT:.*]] = graph.not %c : tensor<3xi1>
// CHECK-NEXT:    %[[KEEP:.*]] = graph.select %c, %x, %y : tensor<3xi1>, tensor<3xf32>
// CHECK-NEXT:    func.return %x, %x, %y, %c, %[[NOT]], %[[KEEP]]
func.func @selects(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>) {
  %t0 = graph.constant dense<true> : tensor<i1>
  %t = graph.broadcast %t0 : tensor<i1> -> tensor<3xi1>
  %f = graph.constant dense<false> : tensor<3xi1>
  %0 = graph.select %c, %x, %x : tensor<3xi1>, tensor<3xf32>
  %1 = graph.select %t, %x, %y : tensor<3xi1>, tensor<3xf32>
  %2 = graph.select %f, %x, %y : tensor<3xi1>, tensor<3xf32>
  %3 = graph.select %c, %t, %f : tensor<3xi1>, tensor<3xi1>
  %4 = graph.select %c, %f, %t : tensor<3xi1>, tensor<3xi1>
  %5 = graph.select %c, %x, %y : tensor<3xi1>, tensor<3xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>
}

// A condition that is not a splat stays.
// CHECK-LABEL: func.func @mixed
// CHECK:         graph.select %m, %x, %y
func.func @mixed(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %m = graph.constant dense<[true, false]> : tensor<2xi1>
  %0 = graph.select %m, %x, %y : tensor<2xi1>, tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
