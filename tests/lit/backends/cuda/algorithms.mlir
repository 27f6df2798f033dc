// RUN: kiln-opt %s -p graph-to-cuda -t cuda | filecheck %s
// RUN: kiln-opt %s -p graph-to-cuda -t cuda > %t.cu
// RUN: %if nvcc %{ nvcc -c -Xcompiler -fPIC -arch=sm_80 %t.cu -o %t.o %}
// The kernel dialect's algorithms run in the host entry point: operands copied to host
// temporaries, the C backend's loops, the output copied back to the device; the output
// parameter counts as written, so it is copied back to the caller.

// CHECK-LABEL: void sort_then_scan(
// CHECK:         float *[[XH:kiln_host[0-9_]*]] = (float *)kiln_cuda_to_host(x_dev, 12*sizeof(float));
// CHECK-NEXT:    float *[[TH:kiln_host[0-9_]*]] = (float *)kiln_cuda_to_host([[T:.*]], 12*sizeof(float));
// CHECK-NEXT:    if (![[XH]] || ![[TH]]) { free([[XH]]); free([[TH]]); KILN_RELEASE_ALL(); return; }
// CHECK:         kiln_sort_f32_line(&[[XH]]{{\[}}{{.*}}], 4, &[[TH]]{{\[}}{{.*}}], 4, NULL, 0, 3, {{.*}});
// CHECK:         cudaError_t [[S:kiln_status[0-9_]*]] = cudaMemcpy([[T]], [[TH]], 12*sizeof(float), cudaMemcpyHostToDevice);
// CHECK-NEXT:    free([[XH]]); free([[TH]]);
// CHECK-NEXT:    if (kiln_cuda_check([[S]], "kernel.sort: copy the result to the device"))
// CHECK:         kernel.scan: copy the result to the device
// CHECK:         cudaMemcpy(out, out_dev, 12*sizeof(float), cudaMemcpyDeviceToHost)
func.func @sort_then_scan(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.sort %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = graph.scan "add", %0 axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %1 : tensor<3x4xf32>
}

// CHECK-LABEL: void counting(
// CHECK:         kiln_sort_i64_search(
// CHECK:         if ({{.*}} >= 0 && {{.*}} < 4) {{.*}} += 1;
func.func @counting(%a: tensor<5xi64>, %v: tensor<6xi64>) -> (tensor<6xi64>, tensor<4xi64>) {
  %0 = graph.searchsorted "left", %a, %v : (tensor<5xi64>, tensor<6xi64>) -> tensor<6xi64>
  %1 = graph.bincount %v : (tensor<6xi64>) -> tensor<4xi64>
  func.return %0, %1 : tensor<6xi64>, tensor<4xi64>
}

// kernel.nonzero runs on the host too: its output, allocated on the device at the count the
// device computed (read back first), is filled on the host and copied back.
// CHECK-LABEL: void nonzero_sum(
// CHECK:         cudaMemcpy(&{{.*}}, {{.*}}, sizeof(int64_t), cudaMemcpyDeviceToHost), "read a device element"
// CHECK:         += {{kiln_host[0-9_]*}}[{{.*}}] != 0;
// CHECK:         kernel.nonzero: copy the result to the device
func.func @nonzero_sum(%x: tensor<8xf32>) -> tensor<i64> {
  %0 = graph.nonzero %x : tensor<8xf32> -> tensor<?xi64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xi64> -> tensor<i64>
  func.return %1 : tensor<i64>
}

// kernel.compress runs on the host too: the values and the mask are copied to the host, the C
// loop (here the byte mask's word path) fills the output there, and it is copied back.
// CHECK-LABEL: void compress_sum(
// CHECK:         cudaMemcpy(&{{.*}}, {{.*}}, sizeof(int64_t), cudaMemcpyDeviceToHost), "read a device element"
// CHECK:         float *[[V:kiln_host[0-9_]*]] = (float *)kiln_cuda_to_host(
// CHECK:         uint8_t *[[M:kiln_host[0-9_]*]] = (uint8_t *)kiln_cuda_to_host(
// CHECK:         memcpy(&{{kiln_host[0-9_]*}}{{\[}}{{k[0-9_]*}}], &[[V]]{{\[}}{{i[0-9_]*}}], 8 * sizeof(float));
// CHECK:         += [[M]]{{\[}}{{.*}}] != 0;
// CHECK:         kernel.compress: copy the result to the device
func.func @compress_sum(%x: tensor<16xf32>, %m: tensor<16xi1>) -> tensor<f32> {
  %0 = graph.compress %x, %m : (tensor<16xf32>, tensor<16xi1>) -> tensor<?xf32>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xf32> -> tensor<f32>
  func.return %1 : tensor<f32>
}
