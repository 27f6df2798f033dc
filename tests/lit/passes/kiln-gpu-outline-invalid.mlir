// RUN: not kiln-opt %s -p kiln-gpu-outline 2>&1 | filecheck %s
// An outermost scf.parallel that reduces into SSA results is a diagnostic (the kernels reduce
// into memrefs, as convert-linalg-to-parallel-loops makes them), not a crash.

// CHECK: kiln-opt: error: kiln-gpu-outline: an outermost scf.parallel with results at loc("model.py":3:7) (a reduction into SSA values) is not supported
// CHECK-NOT: Traceback
func.func @psum(%x: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %s = "scf.parallel"(%c0, %c8, %c1, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<8xf32>
    scf.reduce(%v : f32) {
    ^bb1(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }) : (index, index, index, f32) -> f32 loc("model.py":3:7)
  func.return %s : f32
}
