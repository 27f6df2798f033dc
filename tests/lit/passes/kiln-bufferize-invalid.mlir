// RUN: not kiln-opt %s -p kiln-bufferize --split-input-file 2>&1 | filecheck %s

// scf.for over tensors is not bufferized (graph loops become scf.while): the diagnostic names the op.
// CHECK: kiln-opt: error: kiln-bufferize: unsupported op 'scf.for' on tensors
func.func @loop(%a: tensor<4xf32>, %lb: index, %ub: index, %step: index) -> tensor<4xf32> {
  %r = scf.for %i = %lb to %ub step %step iter_args(%x = %a) -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}

