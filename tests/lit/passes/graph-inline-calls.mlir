// RUN: kiln-opt %s -p graph-inline-calls | filecheck %s
// RUN: kiln-opt %s -p graph-inline-calls | kiln-opt -p graph-inline-calls | filecheck %s

// Each call becomes a copy of the callee's body on its operands; a callee calling a callee is
// inlined through; the private callees are gone afterwards, the public function stays.
// CHECK-LABEL: func.func @outer
// CHECK-NEXT:    %[[A:.*]] = graph.mul %x, %x : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.add %[[A]], %x : tensor<4xf32>
// CHECK-NEXT:    graph.print "{}\0A"(%[[B]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.mul %[[B]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.add %[[C]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.neg %[[D]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<4xf32>
// CHECK-NOT:   func.func private
func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @square_plus(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.print "{}\n" (%a : tensor<4xf32>)
  %b = func.call @negated(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
func.func private @square_plus(%y: tensor<4xf32>) -> tensor<4xf32> {
  %s = graph.mul %y, %y : tensor<4xf32>
  %t = graph.add %s, %y : tensor<4xf32>
  func.return %t : tensor<4xf32>
}
func.func private @negated(%z: tensor<4xf32>) -> tensor<4xf32> {
  %u = func.call @square_plus(%z) : (tensor<4xf32>) -> tensor<4xf32>
  %v = graph.neg %u : tensor<4xf32>
  func.return %v : tensor<4xf32>
}
