// RUN: kiln-opt %s -p graph-hoist-window-convs | filecheck %s

// for r in range(4): for c in range(3): out[:, r, c, :] = sum(x[:, r:r+3, c:c+2, :, None] * w[None], (1, 2, 3)):
// conv2d(x, w) once before the loops, its pixel (r, c) inside.
// CHECK-LABEL: func.func @pixels
// CHECK:         %[[C:.*]] = graph.conv2d %x, %w strides array<i64: 1, 1> padding "VALID" : (tensor<2x6x4x3xf32>, tensor<3x2x3x5xf32>) -> tensor<2x4x3x5xf32>
// CHECK-NEXT:    graph.while
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<2x4x3x5xf32>, %[[R:.*]]: tensor<i64>):
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<2x4x3x5xf32>, %[[COL:.*]]: tensor<i64>):
// CHECK-NOT:       graph.reduce
// CHECK:           %[[P:.*]] = graph.dynamic_slice %[[C]][%[[R]], %[[COL]]] [] static_offsets array<i64: 0, -9223372036854775808, -9223372036854775808, 0> static_sizes array<i64: 2, 1, 1, 5> strides array<i64: 1, 1, 1, 1> : tensor<2x4x3x5xf32> -> tensor<2x1x1x5xf32>
// CHECK-NEXT:      %{{.*}} = graph.reshape %[[P]] : tensor<2x1x1x5xf32> -> tensor<2x5xf32>
// CHECK-NOT:       graph.reduce
func.func @pixels(%x: tensor<2x6x4x3xf32>, %w: tensor<3x2x3x5xf32>) -> tensor<2x4x3x5xf32> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f32>
  %out0 = graph.broadcast %zero : tensor<f32> -> tensor<2x4x3x5xf32>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c3 = graph.constant dense<3> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %res, %rn = graph.while(%out0, %c0) : (tensor<2x4x3x5xf32>, tensor<i64>) -> (tensor<2x4x3x5xf32>, tensor<i64>) cond {
  ^bb0(%o: tensor<2x4x3x5xf32>, %r: tensor<i64>):
    %p = graph.cmp "lt", %r, %c4 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %r : tensor<2x4x3x5xf32>, tensor<i64>
  } do {
  ^bb1(%o: tensor<2x4x3x5xf32>, %r: tensor<i64>):
    %inner, %cn = graph.while(%o, %c0) : (tensor<2x4x3x5xf32>, tensor<i64>) -> (tensor<2x4x3x5xf32>, tensor<i64>) cond {
    ^bb2(%oi: tensor<2x4x3x5xf32>, %c: tensor<i64>):
      %q = graph.cmp "lt", %c, %c3 : tensor<i64> -> tensor<i1>
      graph.condition %q, %oi, %c : tensor<2x4x3x5xf32>, tensor<i64>
    } do {
    ^bb3(%oi: tensor<2x4x3x5xf32>, %c: tensor<i64>):
      %win = graph.dynamic_slice %x[%r, %c] [] static_offsets array<i64: 0, -9223372036854775808, -9223372036854775808, 0> static_sizes array<i64: 2, 3, 2, 3> strides array<i64: 1, 1, 1, 1> : tensor<2x6x4x3xf32> -> tensor<2x3x2x3xf32>
      %win5 = graph.reshape %win : tensor<2x3x2x3xf32> -> tensor<2x3x2x3x1xf32>
      %w5 = graph.reshape %w : tensor<3x2x3x5xf32> -> tensor<1x3x2x3x5xf32>
      %winb = graph.broadcast %win5 : tensor<2x3x2x3x1xf32> -> tensor<2x3x2x3x5xf32>
      %wb = graph.broadcast %w5 : tensor<1x3x2x3x5xf32> -> tensor<2x3x2x3x5xf32>
      %prod = graph.mul %winb, %wb : tensor<2x3x2x3x5xf32>
      %sum = graph.reduce "sum", %prod axes array<i64: 1, 2, 3> : tensor<2x3x2x3x5xf32> -> tensor<2x5xf32>
      %pix = graph.reshape %sum : tensor<2x5xf32> -> tensor<2x1x1x5xf32>
      %oi2 = graph.insert_slice %pix into %oi[%r, %c] [] static_offsets array<i64: 0, -9223372036854775808, -9223372036854775808, 0> static_sizes array<i64: 2, 1, 1, 5> strides array<i64: 1, 1, 1, 1> : tensor<2x1x1x5xf32> into tensor<2x4x3x5xf32>
      %c2 = graph.add %c, %c1 : tensor<i64>
      graph.yield %oi2, %c2 : tensor<2x4x3x5xf32>, tensor<i64>
    }
    %r2 = graph.add %r, %c1 : tensor<i64>
    graph.yield %inner, %r2 : tensor<2x4x3x5xf32>, tensor<i64>
  }
  func.return %res : tensor<2x4x3x5xf32>
}

// Left alone: the same loops reducing the window by max (a pooling, not a product).
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     graph.conv2d
// CHECK:         graph.reduce "max"
func.func @kept(%x: tensor<2x6x4x3xf32>, %w: tensor<3x2x3x5xf32>) -> tensor<2x4x3x5xf32> {
  %zero = graph.constant dense<0.000000e+00> : tensor<f32>
  %out0 = graph.broadcast %zero : tensor<f32> -> tensor<2x4x3x5xf32>
  %c0 = graph.constant dense<0> : tensor<i64>
  %c1 = graph.constant dense<1> : tensor<i64>
  %c3 = graph.constant dense<3> : tensor<i64>
  %c4 = graph.constant dense<4> : tensor<i64>
  %res, %rn = graph.while(%out0, %c0) : (tensor<2x4x3x5xf32>, tensor<i64>) -> (tensor<2x4x3x5xf32>, tensor<i64>) cond {
  ^bb0(%o: tensor<2x4x3x5xf32>, %r: tensor<i64>):
    %p = graph.cmp "lt", %r, %c4 : tensor<i64> -> tensor<i1>
    graph.condition %p, %o, %r : tensor<2x4x3x5xf32>, tensor<i64>
  } do {
  ^bb1(%o: tensor<2x4x3x5xf32>, %r: tensor<i64>):
    %inner, %cn = graph.while(%o, %c0) : (tensor<2x4x3x5xf32>, tensor<i64>) -> (tensor<2x4x3x5xf32>, tensor<i64>) cond {
    ^bb2(%oi: tensor<2x4x3x5xf32>, %c: tensor<i64>):
      %q = graph.cmp "lt", %c, %c3 : tensor<i64> -> tensor<i1>
      graph.condition %q, %oi, %c : tensor<2x4x3x5xf32>, tensor<i64>
    } do {
    ^bb3(%oi: tensor<2x4x3x5xf32>, %c: tensor<i64>):
      %win = graph.dynamic_slice %x[%r, %c] [] static_offsets array<i64: 0, -9223372036854775808, -9223372036854775808, 0> static_sizes array<i64: 2, 3, 2, 3> strides array<i64: 1, 1, 1, 1> : tensor<2x6x4x3xf32> -> tensor<2x3x2x3xf32>
      %win5 = graph.reshape %win : tensor<2x3x2x3xf32> -> tensor<2x3x2x3x1xf32>
      %w5 = graph.reshape %w : tensor<3x2x3x5xf32> -> tensor<1x3x2x3x5xf32>
      %winb = graph.broadcast %win5 : tensor<2x3x2x3x1xf32> -> tensor<2x3x2x3x5xf32>
      %wb = graph.broadcast %w5 : tensor<1x3x2x3x5xf32> -> tensor<2x3x2x3x5xf32>
      %prod = graph.mul %winb, %wb : tensor<2x3x2x3x5xf32>
      %big = graph.reduce "max", %prod axes array<i64: 1, 2, 3> : tensor<2x3x2x3x5xf32> -> tensor<2x5xf32>
      %pix = graph.reshape %big : tensor<2x5xf32> -> tensor<2x1x1x5xf32>
      %oi2 = graph.insert_slice %pix into %oi[%r, %c] [] static_offsets array<i64: 0, -9223372036854775808, -9223372036854775808, 0> static_sizes array<i64: 2, 1, 1, 5> strides array<i64: 1, 1, 1, 1> : tensor<2x1x1x5xf32> into tensor<2x4x3x5xf32>
      %c2 = graph.add %c, %c1 : tensor<i64>
      graph.yield %oi2, %c2 : tensor<2x4x3x5xf32>, tensor<i64>
    }
    %r2 = graph.add %r, %c1 : tensor<i64>
    graph.yield %inner, %r2 : tensor<2x4x3x5xf32>, tensor<i64>
  }
  func.return %res : tensor<2x4x3x5xf32>
}
