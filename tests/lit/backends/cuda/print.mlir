// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s

// krt.print runs on the host: each printed device buffer (a strided view too) is copied to a
// host temporary after the kernels finished, formatted by the C backend's print runtime and
// handed to kiln_write_hook (exported, as from a C library); the temporaries are freed.
// CHECK:       __attribute__((visibility("default"))) kiln_write_fn kiln_write_hook = kiln_write_stdout;
// CHECK:       static void kiln_fmt_value(
// CHECK:       void show(float *__restrict__ x, int64_t *__restrict__ n) {
// CHECK:         show_kernel0<<<
// CHECK:         if (kiln_cuda_check(cudaDeviceSynchronize(), "kernel show_kernel0"))
// CHECK:         float *[[H:.*]] = (float *)kiln_cuda_to_host([[BUF:.*]], 6*sizeof(float));
// CHECK-NEXT:    float *[[V:.*]] = (float *)kiln_cuda_to_host({{.*}}, 4*sizeof(float));
// CHECK-NEXT:    int64_t *[[N:.*]] = (int64_t *)kiln_cuda_to_host(n_dev, 1*sizeof(int64_t));
// CHECK-NEXT:    if (![[H]] || ![[V]] || ![[N]]) { free([[H]]); free([[V]]); free([[N]]); KILN_RELEASE_ALL(); return; }
// CHECK:         kiln_put(&[[T:.*]], "y = ", 4);
// CHECK-NEXT:    const int64_t [[S:.*]][] = {2, 3};
// CHECK-NEXT:    const int64_t [[D:.*]][] = {3, 1};
// CHECK-NEXT:    kiln_fmt_value(&[[T]], (const void *)[[H]], 5, 2, [[S]], [[D]]);
// CHECK:         kiln_fmt_value(&[[T]], (const void *)[[V]], 5, 1, {{.*}}, {{.*}});
// CHECK:         kiln_fmt_value(&[[T]], (const void *)[[N]], 4, 0, NULL, NULL);
// CHECK:         kiln_flush(&[[T]]);
// CHECK-NEXT:    free([[H]]); free([[V]]); free([[N]]);
// CHECK:         cudaFree([[BUF]])
func.func @show(%x: memref<2x3xf32>, %n: memref<i64>) {
  %y = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  %col = memref.subview %x[0, 1] [2, 1] [1, 1] : memref<2x3xf32> to memref<2xf32, strided<[3], offset: 1>>
  krt.print "y = {}, column {}, n = {}\0A"(%y, %col, %n : memref<2x3xf32>, memref<2xf32, strided<[3], offset: 1>>, memref<i64>)
  memref.dealloc %y : memref<2x3xf32>
  func.return
}
