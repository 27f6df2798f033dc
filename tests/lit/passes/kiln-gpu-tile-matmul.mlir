// RUN: kiln-opt %s -p kiln-gpu-tile-matmul | filecheck %s

// A 64x40 matmul (>= 1024 output points) becomes a launch of a tiled kernel: 2x2 blocks of
// 16x16 threads, A and B tiles in shared memory (address space 3) between barriers, the
// linalg body cloned into the k loop.
// CHECK:       func.func @mm(
// CHECK:         linalg.fill
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@mm_matmul0
// CHECK-NOT:     linalg.generic
// CHECK:       func.func @small(
// CHECK:         linalg.generic
// CHECK:       "gpu.module"() <{sym_name = "kernels"}>
// CHECK:         "gpu.func"()
// CHECK:           memref.alloca() : memref<512xf32, 3 : i64>
// CHECK:           memref.alloca() : memref<512xf32, 3 : i64>
// CHECK:           "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// CHECK:           scf.for
// CHECK:             "gpu.barrier"()
// CHECK:             scf.for
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:             "gpu.barrier"()
// CHECK:           scf.if
// CHECK:             memref.store
// CHECK:         }) {sym_name = "mm_matmul0"}
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @mm(%a: memref<64x48xf32>, %b: memref<48x40xf32>, %out: memref<64x40xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<64x40xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x48xf32>, memref<48x40xf32>) outs(%out : memref<64x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}

// A small output keeps the generic mapping (block-tree reductions for long k).
func.func @small(%a: memref<8x512xf32>, %b: memref<512x8xf32>, %out: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x512xf32>, memref<512x8xf32>) outs(%out : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}
