// RUN: kiln-opt %s -p graph-order-effects | filecheck %s
// Idempotent: a second run changes nothing.
// RUN: kiln-opt %s -p graph-order-effects | kiln-opt -p graph-order-effects | filecheck %s

// CHECK-LABEL: func.func @straight
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %[[T1:.*]] = graph.print after %[[T0]] "x = {}\0A"(%x : tensor<4xf32>) -> !graph.token
// CHECK-NEXT:    %[[R:.*]], %[[T2:.*]] = graph.read %v after %[[T1]] : !graph.resource<tensor<4xf32>> -> tensor<4xf32>, !graph.token
// CHECK-NEXT:    %[[T3:.*]] = graph.assign %x to %v after %[[T2]] : tensor<4xf32> to !graph.resource<tensor<4xf32>> -> !graph.token
// CHECK-NEXT:    func.return %[[R]]
func.func @straight(%x: tensor<4xf32>, %v: !graph.resource<tensor<4xf32>>) -> tensor<4xf32> {
  graph.print "x = {}\n" (%x : tensor<4xf32>)
  %r = graph.read %v : !graph.resource<tensor<4xf32>> -> tensor<4xf32>
  graph.assign %x to %v : tensor<4xf32> to !graph.resource<tensor<4xf32>>
  func.return %r : tensor<4xf32>
}

// The token is captured by both branches and comes back as one more result.
// CHECK-LABEL: func.func @cond
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %[[C:.*]], %[[T1:.*]] = graph.cond %p -> (tensor<4xf32>, !graph.token) {
// CHECK-NEXT:      %[[T2:.*]] = graph.print after %[[T0]] "then\0A" -> !graph.token
// CHECK-NEXT:      graph.yield %x, %[[T2]] : tensor<4xf32>, !graph.token
// CHECK-NEXT:    } else {
// CHECK-NEXT:      graph.yield %x, %[[T0]] : tensor<4xf32>, !graph.token
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = graph.print after %[[T1]] "done\0A" -> !graph.token
func.func @cond(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %c = graph.cond %p -> (tensor<4xf32>) {
    graph.print "then\n"
    graph.yield %x : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  graph.print "done\n"
  func.return %c : tensor<4xf32>
}

// The loop carries the token as its last value.
// CHECK-LABEL: func.func @loop
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %{{.*}}, %{{.*}} = graph.while(%n, %[[T0]]) : (tensor<i64>, !graph.token) -> (tensor<i64>, !graph.token) cond {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: tensor<i64>, %[[TC:.*]]: !graph.token):
// CHECK:           graph.condition %{{.*}}, %[[I]], %[[TC]] : tensor<i64>, !graph.token
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[J:.*]]: tensor<i64>, %[[TB:.*]]: !graph.token):
// CHECK-NEXT:      %[[TP:.*]] = graph.print after %[[TB]] "i = {}\0A"(%[[J]] : tensor<i64>) -> !graph.token
// CHECK:           graph.yield %{{.*}}, %[[TP]] : tensor<i64>, !graph.token
func.func @loop(%n: tensor<i64>) {
  %w = graph.while (%n) : (tensor<i64>) -> (tensor<i64>) cond {
  ^bb0(%i: tensor<i64>):
    %z = graph.constant dense<0> : tensor<i64>
    %c = graph.cmp "gt", %i, %z : tensor<i64> -> tensor<i1>
    graph.condition %c, %i : tensor<i64>
  } do {
  ^bb0(%i: tensor<i64>):
    graph.print "i = {}\n" (%i : tensor<i64>)
    %one = graph.constant dense<1> : tensor<i64>
    %j = graph.sub %i, %one : tensor<i64>
    graph.yield %j : tensor<i64>
  }
  func.return
}

// No effects: nothing changes.
// CHECK-LABEL: func.func @pure
// CHECK-NEXT:    func.return %x
func.func @pure(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
