// RUN: kiln-opt %s -p graph-hoist-row-products | filecheck %s

// for i in range(4): out[i, i:] = x[:, i] @ x[:, i:]  (a covariance's upper triangle, row by row):
// x.T @ x once before the loop (symmetric: the kernel computes half), its row i from column i on inside.
// CHECK-LABEL: func.func @triangle
// CHECK:         %[[T:.*]] = graph.transpose %x perm array<i64: 1, 0> : tensor<3x4xf64> -> tensor<4x3xf64>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[T]], %x : (tensor<4x3xf64>, tensor<3x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    graph.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4x4xf64>, %[[I:.*]]: tensor<i64>):
// CHECK:           %[[N:.*]] = graph.sub %{{.*}}, %[[I]] : tensor<i64>
// CHECK-NOT:       graph.matmul
// CHECK:           %[[S:.*]] = graph.dynamic_slice %[[P]][%[[I]], %[[I]]] [%[[N]]] static_offsets array<i64: -9223372036854775808, -9223372036854775808> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 1> : tensor<4x4xf64> -> tensor<1x?xf64>
// CHECK-NEXT:      %[[R:.*]] = graph.reshape %[[S]] : tensor<1x?xf64> -> tensor<?xf64>
// CHECK-NEXT:      %[[R2:.*]] = graph.reshape %[[R]] : tensor<?xf64> -> tensor<1x?xf64>
// CHECK-NOT:       graph.matmul
// CHECK:         }
func.func @triangle(%x: tensor<3x4xf64>) -> tensor<4x4xf64> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f64>
  %out0 = graph.broadcast %zero : tensor<f64> -> tensor<4x4xf64>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %r, %n = graph.while(%out0, %c0) : (tensor<4x4xf64>, tensor<i64>) -> (tensor<4x4xf64>, tensor<i64>) cond {
  ^bb0(%o: tensor<4x4xf64>, %i: tensor<i64>):
    %p = graph.cmp "lt", %i, %c4 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %i : tensor<4x4xf64>, tensor<i64>
  } do {
  ^bb1(%o: tensor<4x4xf64>, %i: tensor<i64>):
    %col = graph.dynamic_slice %x[%i] [] static_offsets array<i64: 0, -9223372036854775808> static_sizes array<i64: 3, 1> strides array<i64: 1, 1> : tensor<3x4xf64> -> tensor<3x1xf64>
    %v = graph.reshape %col : tensor<3x1xf64> -> tensor<3xf64>
    %len = graph.sub %c4, %i : tensor<i64>
    %tail = graph.dynamic_slice %x[%i] [%len] static_offsets array<i64: 0, -9223372036854775808> static_sizes array<i64: 3, -9223372036854775808> strides array<i64: 1, 1> : tensor<3x4xf64> -> tensor<3x?xf64>
    %row = graph.matmul %v, %tail : (tensor<3xf64>, tensor<3x?xf64>) -> tensor<?xf64>
    %row2 = graph.reshape %row : tensor<?xf64> -> tensor<1x?xf64>
    %o2 = graph.insert_slice %row2 into %o[%i, %i] [%len] static_offsets array<i64: -9223372036854775808, -9223372036854775808> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 1> : tensor<1x?xf64> into tensor<4x4xf64>
    %i2 = graph.add %i, %c1 : tensor<i64>
    graph.yield %o2, %i2 : tensor<4x4xf64>, tensor<i64>
  }
  func.return %r : tensor<4x4xf64>
}

// for i in range(3): out[i, i+1:] = x[:, i] @ x[:, i+1:]  (a correlation's strict upper triangle):
// the same product, row i from column i + 1 on (the offset and size the loop computed).
// CHECK-LABEL: func.func @strict_triangle
// CHECK:         %[[P:.*]] = graph.matmul %{{.*}}, %x : (tensor<4x3xf64>, tensor<3x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    graph.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4x4xf64>, %[[I:.*]]: tensor<i64>):
// CHECK:           %[[J:.*]] = graph.add %[[I]], %c1 : tensor<i64>
// CHECK-NEXT:      %[[N:.*]] = graph.sub %c4, %[[J]] : tensor<i64>
// CHECK-NOT:       graph.matmul
// CHECK:           graph.dynamic_slice %[[P]][%[[I]], %[[J]]] [%[[N]]] {{.*}} : tensor<4x4xf64> -> tensor<1x?xf64>
func.func @strict_triangle(%x: tensor<3x4xf64>) -> tensor<4x4xf64> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f64>
  %out0 = graph.broadcast %zero : tensor<f64> -> tensor<4x4xf64>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c3 = graph.constant dense<3> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %r, %n = graph.while(%out0, %c0) : (tensor<4x4xf64>, tensor<i64>) -> (tensor<4x4xf64>, tensor<i64>) cond {
  ^bb0(%o: tensor<4x4xf64>, %i: tensor<i64>):
    %p = graph.cmp "lt", %i, %c3 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %i : tensor<4x4xf64>, tensor<i64>
  } do {
  ^bb1(%o: tensor<4x4xf64>, %i: tensor<i64>):
    %col = graph.dynamic_slice %x[%i] [] static_offsets array<i64: 0, -9223372036854775808> static_sizes array<i64: 3, 1> strides array<i64: 1, 1> : tensor<3x4xf64> -> tensor<3x1xf64>
    %v = graph.reshape %col : tensor<3x1xf64> -> tensor<3xf64>
    %j = graph.add %i, %c1 : tensor<i64>
    %len = graph.sub %c4, %j : tensor<i64>
    %tail = graph.dynamic_slice %x[%j] [%len] static_offsets array<i64: 0, -9223372036854775808> static_sizes array<i64: 3, -9223372036854775808> strides array<i64: 1, 1> : tensor<3x4xf64> -> tensor<3x?xf64>
    %row = graph.matmul %v, %tail : (tensor<3xf64>, tensor<3x?xf64>) -> tensor<?xf64>
    %row2 = graph.reshape %row : tensor<?xf64> -> tensor<1x?xf64>
    %o2 = graph.insert_slice %row2 into %o[%i, %j] [%len] static_offsets array<i64: -9223372036854775808, -9223372036854775808> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 1> : tensor<1x?xf64> into tensor<4x4xf64>
    %i2 = graph.add %i, %c1 : tensor<i64>
    graph.yield %o2, %i2 : tensor<4x4xf64>, tensor<i64>
  }
  func.return %r : tensor<4x4xf64>
}

// for i in range(4): out[i] = a[i] @ b: a @ b once, its row i inside.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[P:.*]] = graph.matmul %a, %b : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT:    graph.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%[[O:.*]]: tensor<4x5xf32>, %[[I:.*]]: tensor<i64>):
// CHECK-NEXT:      graph.gather_row %a[%[[I]]]
// CHECK-NEXT:      %[[R:.*]] = graph.gather_row %[[P]][%[[I]]] : tensor<4x5xf32>, tensor<i64> -> tensor<5xf32>
// CHECK-NEXT:      graph.scatter_row %[[R]] into %[[O]][%[[I]]]
func.func @rows(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f32>
  %out0 = graph.broadcast %zero : tensor<f32> -> tensor<4x5xf32>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %r, %n = graph.while(%out0, %c0) : (tensor<4x5xf32>, tensor<i64>) -> (tensor<4x5xf32>, tensor<i64>) cond {
  ^bb0(%o: tensor<4x5xf32>, %i: tensor<i64>):
    %p = graph.cmp "lt", %i, %c4 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %i : tensor<4x5xf32>, tensor<i64>
  } do {
  ^bb1(%o: tensor<4x5xf32>, %i: tensor<i64>):
    %v = graph.gather_row %a[%i] : tensor<4x3xf32>, tensor<i64> -> tensor<3xf32>
    %row = graph.matmul %v, %b : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
    %o2 = graph.scatter_row %row into %o[%i] : tensor<5xf32>, tensor<4x5xf32>, tensor<i64>
    %i2 = graph.add %i, %c1 : tensor<i64>
    graph.yield %o2, %i2 : tensor<4x5xf32>, tensor<i64>
  }
  func.return %r : tensor<4x5xf32>
}

// Left alone: a right operand the loop changes, and integers (no GEMM kernel); then a loop over
// 1 of a's 4 rows (the whole product would be four times the work).
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     graph.matmul
// CHECK:         graph.while
// CHECK-COUNT-2:   graph.matmul
func.func @kept(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %ai: tensor<4x3xi32>, %bi: tensor<3x5xi32>) -> tensor<4x5xf32> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f32>
  %out0 = graph.broadcast %zero : tensor<f32> -> tensor<4x5xf32>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %r, %bn, %n = graph.while(%out0, %b, %c0) : (tensor<4x5xf32>, tensor<3x5xf32>, tensor<i64>) -> (tensor<4x5xf32>, tensor<3x5xf32>, tensor<i64>) cond {
  ^bb0(%o: tensor<4x5xf32>, %bc: tensor<3x5xf32>, %i: tensor<i64>):
    %p = graph.cmp "lt", %i, %c4 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %bc, %i : tensor<4x5xf32>, tensor<3x5xf32>, tensor<i64>
  } do {
  ^bb1(%o: tensor<4x5xf32>, %bc: tensor<3x5xf32>, %i: tensor<i64>):
    %v = graph.gather_row %a[%i] : tensor<4x3xf32>, tensor<i64> -> tensor<3xf32>
    %row = graph.matmul %v, %bc : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
    %vi = graph.gather_row %ai[%i] : tensor<4x3xi32>, tensor<i64> -> tensor<3xi32>
    %rowi = graph.matmul %vi, %bi : (tensor<3xi32>, tensor<3x5xi32>) -> tensor<5xi32>
    %rowf = graph.cast %rowi : tensor<5xi32> -> tensor<5xf32>
    %sum = graph.add %row, %rowf : tensor<5xf32>
    %o2 = graph.scatter_row %sum into %o[%i] : tensor<5xf32>, tensor<4x5xf32>, tensor<i64>
    %b2 = graph.add %bc, %bc : tensor<3x5xf32>
    %i2 = graph.add %i, %c1 : tensor<i64>
    graph.yield %o2, %b2, %i2 : tensor<4x5xf32>, tensor<3x5xf32>, tensor<i64>
  }
  func.return %r : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @one_row
// CHECK-NOT:     graph.matmul
// CHECK:         graph.while
// CHECK:           graph.matmul %{{.*}}, %b
func.func @one_row(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f32>
  %out0 = graph.broadcast %zero : tensor<f32> -> tensor<4x5xf32>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %r, %n = graph.while(%out0, %c0) : (tensor<4x5xf32>, tensor<i64>) -> (tensor<4x5xf32>, tensor<i64>) cond {
  ^bb0(%o: tensor<4x5xf32>, %i: tensor<i64>):
    %p = graph.cmp "lt", %i, %c1 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %i : tensor<4x5xf32>, tensor<i64>
  } do {
  ^bb1(%o: tensor<4x5xf32>, %i: tensor<i64>):
    %v = graph.gather_row %a[%i] : tensor<4x3xf32>, tensor<i64> -> tensor<3xf32>
    %row = graph.matmul %v, %b : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
    %o2 = graph.scatter_row %row into %o[%i] : tensor<5xf32>, tensor<4x5xf32>, tensor<i64>
    %i2 = graph.add %i, %c1 : tensor<i64>
    graph.yield %o2, %i2 : tensor<4x5xf32>, tensor<i64>
  }
  func.return %r : tensor<4x5xf32>
}
