// RUN: kiln-opt %s --rules kiln:matmul-scale | filecheck %s

// (s * A) @ B, A @ (B * s): the factor moves onto the product.
// CHECK-LABEL: func.func @scaled
// CHECK-DAG:     %[[S:.*]] = graph.constant dense<1.500000e+00> : tensor<f64>
// CHECK-DAG:     %[[AB:.*]] = graph.matmul %a, %b : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
// CHECK-DAG:     %[[SB:.*]] = graph.broadcast %[[S]] : tensor<f64> -> tensor<4x5xf64>
// CHECK:         %[[LHS:.*]] = graph.mul %[[SB]], %[[AB]] : tensor<4x5xf64>
// CHECK:         %[[AB2:.*]] = graph.matmul %a, %b
// CHECK:         %[[RHS:.*]] = graph.mul {{.*}}, %[[AB2]] : tensor<4x5xf64>
// CHECK:         func.return %[[LHS]], %[[RHS]]
func.func @scaled(%a: tensor<4x3xf64>, %b: tensor<3x5xf64>) -> (tensor<4x5xf64>, tensor<4x5xf64>) {
  %s = graph.constant dense<1.5> : tensor<f64>
  %sa = graph.broadcast %s : tensor<f64> -> tensor<4x3xf64>
  %0 = graph.mul %sa, %a : tensor<4x3xf64>
  %1 = graph.matmul %0, %b : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  %sb = graph.broadcast %s : tensor<f64> -> tensor<3x5xf64>
  %2 = graph.mul %b, %sb : tensor<3x5xf64>
  %3 = graph.matmul %a, %2 : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  func.return %1, %3 : tensor<4x5xf64>, tensor<4x5xf64>
}

// A scaled operand used elsewhere too stays (moving the factor would not save its pass), and
// so do integer products and products by a scaled array that is not a scalar's broadcast.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[SA:.*]] = graph.mul %{{.*}}, %a : tensor<4x3xf64>
// CHECK-NEXT:    %[[P:.*]] = graph.matmul %[[SA]], %b
// CHECK:         %[[IP:.*]] = graph.matmul %{{.*}}, %ib : (tensor<4x3xi64>, tensor<3x5xi64>)
// CHECK:         %[[VA:.*]] = graph.mul %v, %a : tensor<4x3xf64>
// CHECK-NEXT:    %[[VP:.*]] = graph.matmul %[[VA]], %b
// CHECK:         func.return %[[P]], %[[SA]], %[[IP]], %[[VP]]
func.func @kept(%a: tensor<4x3xf64>, %b: tensor<3x5xf64>, %ia: tensor<4x3xi64>, %ib: tensor<3x5xi64>, %v: tensor<4x3xf64>) -> (tensor<4x5xf64>, tensor<4x3xf64>, tensor<4x5xi64>, tensor<4x5xf64>) {
  %s = graph.constant dense<1.5> : tensor<f64>
  %sa = graph.broadcast %s : tensor<f64> -> tensor<4x3xf64>
  %0 = graph.mul %sa, %a : tensor<4x3xf64>
  %1 = graph.matmul %0, %b : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  %k = graph.constant dense<3> : tensor<i64>
  %ka = graph.broadcast %k : tensor<i64> -> tensor<4x3xi64>
  %2 = graph.mul %ka, %ia : tensor<4x3xi64>
  %3 = graph.matmul %2, %ib : (tensor<4x3xi64>, tensor<3x5xi64>) -> tensor<4x5xi64>
  %4 = graph.mul %v, %a : tensor<4x3xf64>
  %5 = graph.matmul %4, %b : (tensor<4x3xf64>, tensor<3x5xf64>) -> tensor<4x5xf64>
  func.return %1, %0, %3, %5 : tensor<4x5xf64>, tensor<4x3xf64>, tensor<4x5xi64>, tensor<4x5xf64>
}
