// --time-passes writes its figures to stderr: stdout is the program (`kiln-opt ... > out.c`).

// RUN: kiln-opt %s -p graph-to-c -t c --time-passes 2>/dev/null | filecheck %s --check-prefix=OUT
// OUT: #include
// OUT-NOT: Pass {{.*}} took
// RUN: kiln-opt %s -p graph-to-c -t c --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIMES
// TIMES: Pass graph-order-effects took {{.*}} seconds
// TIMES: Pass kiln-vectorize took {{.*}} seconds
func.func @scale(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = graph.add %x, %x : tensor<64xf32>
  func.return %a : tensor<64xf32>
}
