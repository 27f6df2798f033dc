// RUN: %roundtrip
// Control flow, dynamic indexing, tokens, prints and variables round-trip.

// CHECK-LABEL: func.func @f
// CHECK:         %[[R:.*]] = graph.cond %p -> (tensor<4xf32>) {
// CHECK-NEXT:      graph.yield %x : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK:         %{{.*}}, %{{.*}} = graph.while(%[[R]], %n) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) cond {
// CHECK:           graph.condition %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i64>
// CHECK-NEXT:    } do {
// CHECK:           graph.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i64>
// CHECK:         %[[ROW:.*]] = graph.gather_row %x[%n] : tensor<4xf32>, tensor<i64> -> tensor<f32>
// CHECK-NEXT:    %[[X2:.*]] = graph.scatter_row %[[ROW]] into %x[%n] : tensor<f32>, tensor<4xf32>, tensor<i64>
// CHECK-NEXT:    graph.print "value {} and {}\0A"(%[[ROW]], %[[X2]] : tensor<f32>, tensor<4xf32>)
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %[[T1:.*]] = graph.print after %[[T0]] "hi\0A" -> !graph.token
// CHECK-NEXT:    %{{.*}}, %[[T2:.*]] = graph.read %v after %[[T1]] : !graph.resource<tensor<4xf32>> -> tensor<4xf32>, !graph.token
// CHECK-NEXT:    %{{.*}} = graph.assign %[[X2]] to %v after %[[T2]] : tensor<4xf32> to !graph.resource<tensor<4xf32>> -> !graph.token
// CHECK-NEXT:    %[[V2:.*]] = graph.read %v : !graph.resource<tensor<4xf32>> -> tensor<4xf32>
// CHECK-NEXT:    graph.assign %[[V2]] to %v : tensor<4xf32> to !graph.resource<tensor<4xf32>>
func.func @f(%x: tensor<4xf32>, %n: tensor<i64>, %v: !graph.resource<tensor<4xf32>>) -> tensor<4xf32> {
  %p = graph.constant dense<true> : tensor<i1>
  %r = graph.cond %p -> (tensor<4xf32>) {
    graph.yield %x : tensor<4xf32>
  } else {
    %y = graph.neg %x : tensor<4xf32>
    graph.yield %y : tensor<4xf32>
  }
  %w:2 = graph.while (%r, %n) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) cond {
  ^bb0(%a: tensor<4xf32>, %i: tensor<i64>):
    %z = graph.constant dense<0> : tensor<i64>
    %c = graph.cmp "gt", %i, %z : tensor<i64> -> tensor<i1>
    graph.condition %c, %a, %i : tensor<4xf32>, tensor<i64>
  } do {
  ^bb0(%a: tensor<4xf32>, %i: tensor<i64>):
    %one = graph.constant dense<1> : tensor<i64>
    %j = graph.sub %i, %one : tensor<i64>
    %b = graph.add %a, %a : tensor<4xf32>
    graph.yield %b, %j : tensor<4xf32>, tensor<i64>
  }
  %row = graph.gather_row %x[%n] : tensor<4xf32>, tensor<i64> -> tensor<f32>
  %x2 = graph.scatter_row %row into %x[%n] : tensor<f32>, tensor<4xf32>, tensor<i64>
  graph.print "value {} and {}\n" (%row, %x2 : tensor<f32>, tensor<4xf32>)
  %t0 = graph.token
  %t1 = graph.print after %t0 "hi\n" -> !graph.token
  %val, %t2 = graph.read %v after %t1 : !graph.resource<tensor<4xf32>> -> tensor<4xf32>, !graph.token
  %t3 = graph.assign %x2 to %v after %t2 : tensor<4xf32> to !graph.resource<tensor<4xf32>> -> !graph.token
  %val2 = graph.read %v : !graph.resource<tensor<4xf32>> -> tensor<4xf32>
  graph.assign %val2 to %v : tensor<4xf32> to !graph.resource<tensor<4xf32>>
  func.return %w#0 : tensor<4xf32>
}
