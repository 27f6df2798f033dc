// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s

// Two products of one shape, each with its own zero-filled destination, and two matrix-vector
// products of one length: every one becomes a kernel call. (A cse of linalg ops on tensors
// merged the two equal fills, the products then shared one destination, and two of NPBench
// mlp's three layers, and mvt's products, fell back to plain loops: 100x slower.)
// CHECK-LABEL: void two_layers({{.*}}) {
// CHECK-COUNT-2: kiln_gemm_f32_small(
// CHECK-LABEL: void two_matvecs({{.*}}) {
// CHECK-COUNT-2: kiln_gemv_f64_part(
func.func @two_layers(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %h = graph.matmul %x, %w1 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = graph.relu %h : tensor<64x64xf32>
  %o = graph.matmul %r, %w2 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  func.return %o : tensor<64x64xf32>
}

func.func @two_matvecs(%a: tensor<300x300xf64>, %y1: tensor<300xf64>, %y2: tensor<300xf64>) -> (tensor<300xf64>, tensor<300xf64>) {
  %p = graph.matmul %a, %y1 : (tensor<300x300xf64>, tensor<300xf64>) -> tensor<300xf64>
  %q = graph.matmul %y2, %a : (tensor<300xf64>, tensor<300x300xf64>) -> tensor<300xf64>
  func.return %p, %q : tensor<300xf64>, tensor<300xf64>
}
