// RUN: not kiln-opt %s -p kiln-bufferize --split-input-file 2>&1 | filecheck %s

// Control flow over tensors is not bufferized yet: the diagnostic names the op.
// CHECK: kiln-opt: error: kiln-bufferize: unsupported op 'scf.if' on tensors
func.func @cond(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> (tensor<4xf32>) {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
