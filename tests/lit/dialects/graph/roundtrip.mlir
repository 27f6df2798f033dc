// RUN: kiln-opt %s | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @elementwise
// CHECK:         %[[C:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.broadcast %b : tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.add %a, %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.sub %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.mul %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.div %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.floordiv %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.mod %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.pow %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.maximum %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.minimum %[[S]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.neg %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.abs %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.relu %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.exp %[[S]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.log %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.sqrt %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.tanh %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.sigmoid %[[E]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[K:.*]] = graph.cmp "lt", %[[S]], %[[E]] : tensor<2x3xf32> -> tensor<2x3xi1>
// CHECK-NEXT:    %[[N:.*]] = graph.not %[[K]] : tensor<2x3xi1>
// CHECK-NEXT:    %[[A:.*]] = graph.and %[[K]], %[[N]] : tensor<2x3xi1>
// CHECK-NEXT:    %{{.*}} = graph.or %[[K]], %[[A]] : tensor<2x3xi1>
// CHECK-NEXT:    %[[W:.*]] = graph.select %[[K]], %[[S]], %[[E]] : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = graph.cast %[[W]] : tensor<2x3xf32> -> tensor<2x3xi32>
// CHECK-NEXT:    func.return %[[W]] : tensor<2x3xf32>
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %bb = graph.broadcast %b : tensor<3xf32> -> tensor<2x3xf32>
  %s = graph.add %a, %bb : tensor<2x3xf32>
  %0 = graph.sub %s, %s : tensor<2x3xf32>
  %1 = graph.mul %s, %s : tensor<2x3xf32>
  %2 = graph.div %s, %s : tensor<2x3xf32>
  %3 = graph.floordiv %s, %s : tensor<2x3xf32>
  %4 = graph.mod %s, %s : tensor<2x3xf32>
  %5 = graph.pow %s, %s : tensor<2x3xf32>
  %6 = graph.maximum %s, %s : tensor<2x3xf32>
  %7 = graph.minimum %s, %s : tensor<2x3xf32>
  %8 = graph.neg %s : tensor<2x3xf32>
  %9 = graph.abs %s : tensor<2x3xf32>
  %10 = graph.relu %s : tensor<2x3xf32>
  %e = graph.exp %s : tensor<2x3xf32>
  %11 = graph.log %e : tensor<2x3xf32>
  %12 = graph.sqrt %e : tensor<2x3xf32>
  %13 = graph.tanh %e : tensor<2x3xf32>
  %14 = graph.sigmoid %e : tensor<2x3xf32>
  %k = graph.cmp "lt", %s, %e : tensor<2x3xf32> -> tensor<2x3xi1>
  %n = graph.not %k : tensor<2x3xi1>
  %a2 = graph.and %k, %n : tensor<2x3xi1>
  %o2 = graph.or %k, %a2 : tensor<2x3xi1>
  %w = graph.select %k, %s, %e : tensor<2x3xi1>, tensor<2x3xf32>
  %ci = graph.cast %w : tensor<2x3xf32> -> tensor<2x3xi32>
  func.return %w : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @shapes
// CHECK:         %{{.*}} = graph.matmul %x, %m : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.matmul %v, %m : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %{{.*}} = graph.reduce "sum", %x axes array<i64: 0> : tensor<2x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.reduce "max", %x axes array<i64: 1> keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %{{.*}} = graph.reduce "mean", %x axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %x perm array<i64: 1, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[SL:.*]] = graph.slice %[[T]] start array<i64: 2, 1> stride array<i64: -1, 1> : tensor<3x2xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %{{.*}} = graph.reshape %[[SL]] : tensor<3x1xf32> -> tensor<3xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "shapes"
// GENERIC:       "graph.reduce"(%{{.*}}) <{kind = "max", axes = array<i64: 1>, keepdims}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
func.func @shapes(%x: tensor<2x3xf32>, %m: tensor<3x4xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %mm = graph.matmul %x, %m : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %vm = graph.matmul %v, %m : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %r = graph.reduce "sum", %x axes array<i64: 0> : tensor<2x3xf32> -> tensor<3xf32>
  %r2 = graph.reduce "max", %x axes array<i64: 1> keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
  %r3 = graph.reduce "mean", %x axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
  %t = graph.transpose %x perm array<i64: 1, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
  %sl = graph.slice %t start array<i64: 2, 1> stride array<i64: -1, 1> : tensor<3x2xf32> -> tensor<3x1xf32>
  %rs = graph.reshape %sl : tensor<3x1xf32> -> tensor<3xf32>
  func.return %rs : tensor<3xf32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK:         graph.add %d, %d : tensor<?x4xf64>
func.func @dynamic(%d: tensor<?x4xf64>) -> tensor<?x4xf64> {
  %0 = graph.add %d, %d : tensor<?x4xf64>
  func.return %0 : tensor<?x4xf64>
}

// NumPy's elementwise math beyond arithmetic; the tests give i1 tensors.
// CHECK-LABEL: func.func @elementwise_math
// CHECK-NEXT:    %{{.*}} = graph.tan %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arcsin %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arccos %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arctan %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.sinh %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.cosh %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arcsinh %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arccosh %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.arctanh %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.log1p %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.expm1 %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.log2 %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.log10 %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.exp2 %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.cbrt %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.rint %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.trunc %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.sign %i : tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.reciprocal %i : tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.arctan2 %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.hypot %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.copysign %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.logaddexp %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.logaddexp2 %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.fmod %i, %i : tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.fmax %x, %x : tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = graph.fmin %b, %b : tensor<3xi1>
// CHECK-NEXT:    %{{.*}} = graph.left_shift %i, %i : tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.right_shift %i, %i : tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.isnan %x : tensor<3xf32> -> tensor<3xi1>
// CHECK-NEXT:    %{{.*}} = graph.isinf %i : tensor<3xi64> -> tensor<3xi1>
// CHECK-NEXT:    %{{.*}} = graph.isfinite %b : tensor<3xi1> -> tensor<3xi1>
// CHECK-NEXT:    %{{.*}} = graph.signbit %x : tensor<3xf32> -> tensor<3xi1>
// GENERIC-LABEL: "func.func"() <{sym_name = "elementwise_math"
// GENERIC:       "graph.signbit"(%{{.*}}) : (tensor<3xf32>) -> tensor<3xi1>
func.func @elementwise_math(%x: tensor<3xf32>, %i: tensor<3xi64>, %b: tensor<3xi1>) -> tensor<3xf32> {
  %0 = graph.tan %x : tensor<3xf32>
  %1 = graph.arcsin %x : tensor<3xf32>
  %2 = graph.arccos %x : tensor<3xf32>
  %3 = graph.arctan %x : tensor<3xf32>
  %4 = graph.sinh %x : tensor<3xf32>
  %5 = graph.cosh %x : tensor<3xf32>
  %6 = graph.arcsinh %x : tensor<3xf32>
  %7 = graph.arccosh %x : tensor<3xf32>
  %8 = graph.arctanh %x : tensor<3xf32>
  %9 = graph.log1p %x : tensor<3xf32>
  %10 = graph.expm1 %x : tensor<3xf32>
  %11 = graph.log2 %x : tensor<3xf32>
  %12 = graph.log10 %x : tensor<3xf32>
  %13 = graph.exp2 %x : tensor<3xf32>
  %14 = graph.cbrt %x : tensor<3xf32>
  %15 = graph.rint %x : tensor<3xf32>
  %16 = graph.trunc %x : tensor<3xf32>
  %17 = graph.sign %i : tensor<3xi64>
  %18 = graph.reciprocal %i : tensor<3xi64>
  %19 = graph.arctan2 %x, %x : tensor<3xf32>
  %20 = graph.hypot %x, %x : tensor<3xf32>
  %21 = graph.copysign %x, %x : tensor<3xf32>
  %22 = graph.logaddexp %x, %x : tensor<3xf32>
  %23 = graph.logaddexp2 %x, %x : tensor<3xf32>
  %24 = graph.fmod %i, %i : tensor<3xi64>
  %25 = graph.fmax %x, %x : tensor<3xf32>
  %26 = graph.fmin %b, %b : tensor<3xi1>
  %27 = graph.left_shift %i, %i : tensor<3xi64>
  %28 = graph.right_shift %i, %i : tensor<3xi64>
  %29 = graph.isnan %x : tensor<3xf32> -> tensor<3xi1>
  %30 = graph.isinf %i : tensor<3xi64> -> tensor<3xi1>
  %31 = graph.isfinite %b : tensor<3xi1> -> tensor<3xi1>
  %32 = graph.signbit %x : tensor<3xf32> -> tensor<3xi1>
  func.return %0 : tensor<3xf32>
}
