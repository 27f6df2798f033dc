// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @wrong_arity(%a: memref<3x3xf64>, %x: memref<3x3xf64>) {
  kernel.linalg "solve" ins(%a : memref<3x3xf64>) outs(%x : memref<3x3xf64>)
  func.return
}
// CHECK: kernel.linalg: kind 'solve' with 1 input(s) is not a routine

// -----

func.func @det_out(%a: memref<3x3xf64>, %x: memref<3xf64>) {
  kernel.linalg "det" ins(%a : memref<3x3xf64>) outs(%x : memref<3xf64>)
  func.return
}
// CHECK: kernel.linalg 'det': output shape should be ()
