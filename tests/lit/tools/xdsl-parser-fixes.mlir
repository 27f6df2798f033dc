// RUN: kiln-opt %s --split-input-file --parsing-diagnostics 2>&1 | filecheck %s
// Inputs that crash xDSL 0.74's parser or verifier with a Python exception are parse errors at
// the op instead (kiln.xdsl_patches).

// A named linalg op without the operands its body needs (xDSL: IndexError).
// CHECK: xdsl-parser-fixes.mlir:9:17
// CHECK: 'linalg.matmul' has too few ins(...)/outs(...) operands for its body
func.func @missing_outs(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>)
  func.return
}

// -----

// An operand defined inside the op's own region (xDSL's verifier: "Forward declared values do
// not have an owner").
// CHECK: xdsl-parser-fixes.mlir:22:3
// CHECK: 'scf.for' uses a value that is defined inside its own region
func.func @bound_in_body(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %n = memref.dim %x, %c0 : memref<?xf32>
  }
  func.return
}

// -----

// A value used above its definition in the same block (xDSL checks no dominance; kiln-vectorize
// crashed with a KeyError on it).
// CHECK: xdsl-parser-fixes.mlir:35:3
// CHECK: 'arith.select' uses %c before its definition
func.func @use_before_def(%a: f32, %b: f32) -> f32 {
  %s = arith.select %c, %a, %b : f32
  %c = arith.cmpf ult, %a, %b : f32
  func.return %s : f32
}

// -----

// The same inside an earlier op's region.
// CHECK: xdsl-parser-fixes.mlir:49:3
// CHECK: 'memref.store' uses %v before its definition
func.func @use_in_region_before_def(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %v, %x[%i] : memref<4xf32>
  }
  %v = arith.constant 1.0 : f32
  func.return
}

// CHECK-NOT: Traceback
