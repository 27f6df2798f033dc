// RUN: kiln-opt %s -p graph-inline-calls | filecheck %s
// RUN: kiln-opt %s -p graph-inline-calls | kiln-opt -p graph-inline-calls | filecheck %s
// RUN: kiln-opt %s -p 'graph-inline-calls{keep-ops=2}' | filecheck %s --check-prefix=KEEP

// By default every call becomes a copy of the callee's body on its operands, a callee calling a
// callee is inlined through, and the private callees are gone afterwards; the public function stays.
// CHECK-LABEL: func.func @outer
// CHECK-NEXT:    %[[A:.*]] = graph.mul %x, %x : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.add %[[A]], %x : tensor<4xf32>
// CHECK-NEXT:    graph.print "{}\0A"(%[[B]] : tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.mul %[[B]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.add %[[C]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.neg %[[D]] : tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.exp %[[E]] : tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.abs %[[F]] : tensor<4xf32>
// CHECK-NEXT:    graph.print "{}\0A"(%[[G]] : tensor<4xf32>)
// CHECK-NEXT:    func.return %[[G]] : tensor<4xf32>
// CHECK-NOT:   func.func private

// With keep-ops=2, callees of two ops or more without effects stay functions and their calls stay
// calls; a smaller callee (@tiny) and one with an effect (@shown) are inlined.
// KEEP-LABEL: func.func @outer
// KEEP-NEXT:    %[[A:.*]] = func.call @square_plus(%x)
// KEEP-NEXT:    graph.print "{}\0A"(%[[A]] : tensor<4xf32>)
// KEEP-NEXT:    %[[B:.*]] = func.call @negated(%[[A]])
// KEEP-NEXT:    %[[C:.*]] = graph.exp %[[B]]
// KEEP-NEXT:    %[[D:.*]] = graph.abs %[[C]]
// KEEP-NEXT:    graph.print "{}\0A"(%[[D]] : tensor<4xf32>)
// KEEP-NEXT:    func.return %[[D]]
// KEEP-DAG:   func.func private @square_plus
// KEEP-DAG:   func.func private @negated
// KEEP-NOT:   @tiny
// KEEP-NOT:   @shown
func.func @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @square_plus(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.print "{}\n" (%a : tensor<4xf32>)
  %b = func.call @negated(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @tiny(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %d = func.call @shown(%c) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
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
func.func private @tiny(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = graph.exp %p : tensor<4xf32>
  func.return %q : tensor<4xf32>
}
func.func private @shown(%m: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.abs %m : tensor<4xf32>
  graph.print "{}\n" (%n : tensor<4xf32>)
  func.return %n : tensor<4xf32>
}
