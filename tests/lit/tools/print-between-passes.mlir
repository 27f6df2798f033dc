// RUN: kiln-opt %s --print-between-passes -p graph-to-c | filecheck %s

// A named pipeline runs as its passes: --print-between-passes shows the IR after each of
// them (it printed nothing, the pipeline being one pass), in the order pipelines.py lists.
// CHECK: IR after graph-order-effects:
// CHECK: IR after convert-graph-to-linalg:
// CHECK: linalg.generic
// CHECK: IR after kiln-bufferize:
// CHECK: memref<64xf32>
// CHECK: IR after convert-linalg-to-loops:
// CHECK: scf.for
// CHECK: IR after kiln-vectorize:
// CHECK-NOT: IR after graph-to-c
func.func @scale(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = graph.add %x, %x : tensor<64xf32>
  func.return %a : tensor<64xf32>
}
