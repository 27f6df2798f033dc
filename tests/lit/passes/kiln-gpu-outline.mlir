// RUN: kiln-opt %s -p kiln-gpu-outline,canonicalize,cse | filecheck %s

// An elementwise loop inside a host scf.for: the loop stays on the host, its body launches a
// grid-stride kernel (8 points -> one block of 32 threads).
// CHECK:       builtin.module attributes {gpu.container_module}
// CHECK-LABEL: func.func @steps
// CHECK:         scf.for
// CHECK:           "gpu.launch_func"(%[[ONE:.*]], %[[ONE]], %[[ONE]], %[[B:.*]], %[[ONE]], %[[ONE]], %x, %k)
// CHECK-SAME:        kernel = @kernels::@steps_kernel0
// CHECK-NOT:     scf.parallel
func.func @steps(%x: memref<8xf32>, %k: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %t = %c0 to %n step %c1 {
    "scf.parallel"(%c0, %c8, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb0(%i: index):
      %v = memref.load %x[%i] : memref<8xf32>
      %w = arith.mulf %v, %k : f32
      memref.store %w, %x[%i] : memref<8xf32>
      scf.reduce
    }) : (index, index, index) -> ()
  }
  func.return
}

// A full reduction over 1000 elements: one block of 256 threads, a shared-memory tree.
// CHECK-LABEL: func.func @total
// CHECK:         "gpu.launch_func"
// CHECK-SAME:      kernel = @kernels::@total_kernel0
// CHECK:       "gpu.module"() <{sym_name = "kernels"}>
// CHECK:         "gpu.func"()
// CHECK:           "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:           "gpu.block_id"()
// CHECK:           scf.for
// CHECK:             memref.load
// CHECK:             arith.mulf
// CHECK:         }) {sym_name = "steps_kernel0"}
// CHECK:         "gpu.func"()
// CHECK:           memref.alloca() : memref<256xf32, 3 : i64>
// CHECK:           "gpu.barrier"()
// CHECK:           arith.shrui
// CHECK:           arith.maximumf
// CHECK:           "gpu.barrier"()
// CHECK:         }) {sym_name = "total_kernel0"}
func.func @total(%x: memref<1000xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %ninf = arith.constant 0xFF800000 : f32
  "scf.parallel"(%c0, %c1, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%p: index):
    %init = memref.load %out[] : memref<f32>
    %r = "scf.parallel"(%c0, %c1000, %c1, %ninf) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
    ^bb1(%i: index):
      %v = memref.load %x[%i] : memref<1000xf32>
      scf.reduce(%v : f32) {
      ^bb2(%a: f32, %b: f32):
        %m = arith.maximumf %a, %b : f32
        scf.reduce.return %m : f32
      }
    }) : (index, index, index, f32) -> f32
    %f = arith.maximumf %init, %r : f32
    memref.store %f, %out[] : memref<f32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
