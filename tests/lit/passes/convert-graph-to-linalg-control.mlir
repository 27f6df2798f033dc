// RUN: kiln-opt %s -p convert-graph-to-linalg | filecheck %s
// Control flow, dynamic rows and stateful ops at the tensor level.

// CHECK-LABEL: func.func @cond
// CHECK:         %[[P:.*]] = tensor.extract %p[] : tensor<i1>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = scf.if %[[P]] -> (tensor<4xf32>, !graph.token) {
// CHECK:           %[[T1:.*]] = graph.print after %{{.*}} "then {}\0A"(%x : tensor<4xf32>) -> !graph.token
// CHECK-NEXT:      scf.yield %x, %[[T1]] : tensor<4xf32>, !graph.token
// CHECK-NEXT:    } else {
// CHECK:           linalg.generic
// CHECK:           scf.yield %{{.*}}, %{{.*}} : tensor<4xf32>, !graph.token
func.func @cond(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %t0 = graph.token
  %c:2 = graph.cond %p -> (tensor<4xf32>, !graph.token) {
    %t1 = graph.print after %t0 "then {}\n" (%x : tensor<4xf32>) -> !graph.token
    graph.yield %x, %t1 : tensor<4xf32>, !graph.token
  } else {
    %y = graph.neg %x : tensor<4xf32>
    graph.yield %y, %t0 : tensor<4xf32>, !graph.token
  }
  func.return %c#0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @loop
// CHECK:         scf.while (%[[A:.*]] = %x, %[[I:.*]] = %n) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) {
// CHECK:           %[[C:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK-NEXT:      scf.condition(%[[C]]) %[[A]], %[[I]] : tensor<4xf32>, tensor<i64>
// CHECK-NEXT:    } do {
// CHECK:           scf.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i64>
func.func @loop(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %w:2 = graph.while (%x, %n) : (tensor<4xf32>, tensor<i64>) -> (tensor<4xf32>, tensor<i64>) cond {
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
  func.return %w#0 : tensor<4xf32>
}

// Index: extract, cast, wrap negatives by adding the row count, clamp to [0, n-1].
// CHECK-LABEL: func.func @rows
// CHECK:         %[[RAW:.*]] = tensor.extract %i[] : tensor<i64>
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:    %[[N:.*]] = arith.constant 5 : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[K]], %[[Z]] : index
// CHECK-NEXT:    %[[W:.*]] = arith.addi %[[K]], %[[N]] : index
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[NEG]], %[[W]], %[[K]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[N]], %[[ONE]] : index
// CHECK-NEXT:    %[[LO:.*]] = arith.maxsi %[[S]], %[[Z]] : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT:    %{{.*}} = tensor.extract_slice %x[%[[ROW]], 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
// CHECK:         %{{.*}} = tensor.insert_slice %r into %x[%{{.*}}, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
func.func @rows(%x: tensor<5x3xf32>, %i: tensor<i64>, %r: tensor<3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %g = graph.gather_row %x[%i] : tensor<5x3xf32>, tensor<i64> -> tensor<3xf32>
  %s = graph.scatter_row %r into %x[%i] : tensor<3xf32>, tensor<5x3xf32>, tensor<i64>
  func.return %g, %s : tensor<3xf32>, tensor<5x3xf32>
}

// Tokens, reads and assigns stay for kiln-bufferize.
// CHECK-LABEL: func.func @state
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %[[V:.*]], %[[T1:.*]] = graph.read %v after %[[T0]]
// CHECK-NEXT:    %{{.*}} = graph.assign %[[V]] to %v after %[[T1]]
func.func @state(%v: !graph.resource<tensor<3xf32>>) {
  %t0 = graph.token
  %val, %t1 = graph.read %v after %t0 : !graph.resource<tensor<3xf32>> -> tensor<3xf32>, !graph.token
  %t2 = graph.assign %val to %v after %t1 : tensor<3xf32> to !graph.resource<tensor<3xf32>> -> !graph.token
  func.return
}
