// RUN: kiln-opt %s -p graph-to-cuda -t cuda | filecheck %s
// RUN: kiln-opt %s -p graph-to-cuda -t cuda > %t.cu && nvcc -c %t.cu -o %t.o

// krt.check on the host: its flag (a device buffer) is read back; on failure the message is
// left for kiln_take_error (a C symbol) and the entry point returns as on a CUDA error.
// CHECK:       static __thread const char *kiln_failed;
// CHECK:       extern "C" const char *kiln_take_error(void) {
// CHECK-LABEL: void lengths(
// CHECK:         cudaMemcpy(&[[F:.*]], {{.*}}, sizeof(bool), cudaMemcpyDeviceToHost)
// CHECK-NEXT:    if (![[F]]) { kiln_failed = "f.py:3:7: lengths differ"; KILN_RELEASE_ALL(); return; }
func.func @lengths(%x: tensor<?xf64>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %n = graph.dim %x, 0 : tensor<?xf64> -> tensor<i64>
  %five = graph.constant dense<5> : tensor<i64>
  %ok = graph.cmp "eq", %n, %five : tensor<i64> -> tensor<i1>
  graph.check %ok, "f.py:3:7: lengths differ" : tensor<i1>
  %b = graph.broadcast %x : tensor<?xf64> -> tensor<5xf64>
  %s = graph.add %b, %y : tensor<5xf64>
  func.return %s : tensor<5xf64>
}
