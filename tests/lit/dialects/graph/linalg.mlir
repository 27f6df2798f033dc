// RUN: %roundtrip

// CHECK-LABEL: func.func @routines
// CHECK-NEXT:    %{{.*}} = graph.linalg "cholesky" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    %{{.*}} = graph.linalg "inv" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>
// CHECK-NEXT:    %{{.*}} = graph.linalg "det" %a : (tensor<4x4xf64>) -> tensor<f64>
// CHECK-NEXT:    %{{.*}} = graph.linalg "solve" %a, %b : (tensor<4x4xf64>, tensor<4xf64>) -> tensor<4xf64>
func.func @routines(%a: tensor<4x4xf64>, %b: tensor<4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>, tensor<f64>, tensor<4xf64>) {
  %l = graph.linalg "cholesky" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>
  %i = graph.linalg "inv" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>
  %d = graph.linalg "det" %a : (tensor<4x4xf64>) -> tensor<f64>
  %x = graph.linalg "solve" %a, %b : (tensor<4x4xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %l, %i, %d, %x : tensor<4x4xf64>, tensor<4x4xf64>, tensor<f64>, tensor<4xf64>
}
