// RUN: kiln-opt %s --rules kiln:graph-arith | filecheck %s

// Neutral constants go, for the element kinds where that is exact bit for bit.
// CHECK-LABEL: func.func @ints
// CHECK-NOT:     graph.add
// CHECK-NOT:     graph.mul
// CHECK:         %[[NEG:.*]] = graph.neg %i : tensor<3xi64>
// CHECK:         %[[NEG2:.*]] = graph.neg %i : tensor<3xi64>
// CHECK:         func.return %i, %i, %i, %i, %[[NEG]], %[[NEG2]], %i
func.func @ints(%i: tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %c0 = graph.constant dense<0> : tensor<i64>
  %z = graph.broadcast %c0 : tensor<i64> -> tensor<3xi64>
  %c1 = graph.constant dense<1> : tensor<3xi64>
  %cm1 = graph.constant dense<-1> : tensor<3xi64>
  %0 = graph.add %i, %z : tensor<3xi64>
  %1 = graph.add %z, %i : tensor<3xi64>
  %2 = graph.sub %i, %z : tensor<3xi64>
  %3 = graph.mul %c1, %i : tensor<3xi64>
  %4 = graph.sub %z, %i : tensor<3xi64>
  %5 = graph.mul %i, %cm1 : tensor<3xi64>
  %6 = graph.floordiv %i, %c1 : tensor<3xi64>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// x + 0.0 stays (it makes -0.0 +0.0), x + (-0.0), x - 0.0, x * 1.0 and x / 1.0 go;
// x // 1.0 (a floor) and x - (-0.0) stay.
// CHECK-LABEL: func.func @floats
// CHECK:         %[[ADD:.*]] = graph.add %x, %{{.*}} : tensor<4xf32>
// CHECK:         %[[FLOOR:.*]] = graph.floordiv %x, %{{.*}} : tensor<4xf32>
// CHECK:         %[[SUBNEG:.*]] = graph.sub %x, %{{.*}} : tensor<4xf32>
// CHECK:         func.return %[[ADD]], %x, %x, %x, %x, %[[FLOOR]], %[[SUBNEG]]
func.func @floats(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %p0 = graph.constant dense<0.0> : tensor<4xf32>
  %n0 = graph.constant dense<-0.0> : tensor<f32>
  %m0 = graph.broadcast %n0 : tensor<f32> -> tensor<4xf32>
  %one = graph.constant dense<1.0> : tensor<4xf32>
  %0 = graph.add %x, %p0 : tensor<4xf32>
  %1 = graph.add %m0, %x : tensor<4xf32>
  %2 = graph.sub %x, %p0 : tensor<4xf32>
  %3 = graph.mul %x, %one : tensor<4xf32>
  %4 = graph.div %x, %one : tensor<4xf32>
  %5 = graph.floordiv %x, %one : tensor<4xf32>
  %6 = graph.sub %x, %m0 : tensor<4xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A constant that is not a splat of the neutral value, and complex numbers, stay.
// CHECK-LABEL: func.func @kept
// CHECK:         graph.mul %x, %{{.*}} : tensor<2xf32>
// CHECK:         graph.mul %z, %{{.*}} : tensor<2xcomplex<f64>>
// CHECK:         graph.add %u, %{{.*}} : tensor<2xui8>
func.func @kept(%x: tensor<2xf32>, %z: tensor<2xcomplex<f64>>, %u: tensor<2xui8>) -> (tensor<2xf32>, tensor<2xcomplex<f64>>, tensor<2xui8>) {
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = graph.mul %x, %c : tensor<2xf32>
  %re = graph.constant dense<1.0> : tensor<2xf64>
  %im = graph.constant dense<0.0> : tensor<2xf64>
  %one = graph.complex %re, %im : tensor<2xf64> -> tensor<2xcomplex<f64>>
  %1 = graph.mul %z, %one : tensor<2xcomplex<f64>>
  %u1 = graph.constant dense<1> : tensor<2xui8>
  %2 = graph.add %u, %u1 : tensor<2xui8>
  func.return %0, %1, %2 : tensor<2xf32>, tensor<2xcomplex<f64>>, tensor<2xui8>
}

// Bitwise identities on integers and bools; shifts by zero.
// CHECK-LABEL: func.func @bits
// CHECK-NOT:     graph.or
// CHECK-NOT:     graph.and
// CHECK-NOT:     graph.xor
// CHECK-NOT:     graph.left_shift
// CHECK:         func.return %i, %i, %i, %b, %b, %b, %i
func.func @bits(%i: tensor<3xi32>, %b: tensor<3xi1>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi32>) {
  %z = graph.constant dense<0> : tensor<3xi32>
  %m = graph.constant dense<-1> : tensor<3xi32>
  %f = graph.constant dense<false> : tensor<3xi1>
  %t = graph.constant dense<true> : tensor<3xi1>
  %0 = graph.or %i, %z : tensor<3xi32>
  %1 = graph.xor %z, %i : tensor<3xi32>
  %2 = graph.and %m, %i : tensor<3xi32>
  %3 = graph.or %f, %b : tensor<3xi1>
  %4 = graph.and %b, %t : tensor<3xi1>
  %5 = graph.xor %b, %f : tensor<3xi1>
  %6 = graph.left_shift %i, %z : tensor<3xi32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi32>
}

// x - x and x ^ x of static integers are a broadcast zero; of floats they stay.
// CHECK-LABEL: func.func @cancel
// CHECK:         %[[Z:.*]] = graph.constant dense<0> : tensor<i64>
// CHECK:         %[[B:.*]] = graph.broadcast %[[Z]] : tensor<i64> -> tensor<2x3xi64>
// CHECK:         %[[F:.*]] = graph.sub %x, %x : tensor<3xf32>
// CHECK:         func.return %[[B]], %[[F]]
func.func @cancel(%i: tensor<2x3xi64>, %x: tensor<3xf32>) -> (tensor<2x3xi64>, tensor<3xf32>) {
  %0 = graph.sub %i, %i : tensor<2x3xi64>
  %1 = graph.sub %x, %x : tensor<3xf32>
  func.return %0, %1 : tensor<2x3xi64>, tensor<3xf32>
}
