// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @unknown_kind(%a: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %r = graph.linalg "qr" %a : (tensor<4x4xf64>) -> tensor<4x4xf64>
  func.return %r : tensor<4x4xf64>
}
// CHECK: graph.linalg: unknown kind 'qr'

// -----

func.func @not_square(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = graph.linalg "inv" %a : (tensor<4x3xf32>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}
// CHECK: graph.linalg: a must be a static square matrix, got shape (4, 3)

// -----

func.func @integer(%a: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %r = graph.linalg "inv" %a : (tensor<2x2xi64>) -> tensor<2x2xi64>
  func.return %r : tensor<2x2xi64>
}
// CHECK: graph.linalg: operands and result must share an f32, f64 or complex element type

// -----

func.func @solve_rows(%a: tensor<3x3xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %r = graph.linalg "solve" %a, %b : (tensor<3x3xf64>, tensor<4xf64>) -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}
// CHECK: graph.linalg solve: b of shape (4,) does not fit a of shape (3, 3)

// -----

func.func @det_shape(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %r = graph.linalg "det" %a : (tensor<3x3xf64>) -> tensor<3x3xf64>
  func.return %r : tensor<3x3xf64>
}
// CHECK: graph.linalg 'det': result shape should be (), got (3, 3)

// -----

func.func @complex_cholesky(%a: tensor<2x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>> {
  %r = graph.linalg "cholesky" %a : (tensor<2x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
  func.return %r : tensor<2x2xcomplex<f64>>
}
// CHECK: graph.linalg: cholesky is real only
