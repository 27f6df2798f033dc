// RUN: not kiln-opt %s -p graph-inline-calls 2>&1 | filecheck %s
// Functions that call each other cannot be inlined: a diagnostic naming one, not a loop.

// CHECK: graph-inline-calls: @{{ping|pong}} calls itself (directly or through other functions)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}
func.func private @ping(%y: tensor<4xf32>) -> tensor<4xf32> {
  %b = func.call @pong(%y) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
func.func private @pong(%z: tensor<4xf32>) -> tensor<4xf32> {
  %c = func.call @ping(%z) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
