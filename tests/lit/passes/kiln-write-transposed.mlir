// RUN: kiln-opt %s --split-input-file -p kiln-write-transposed | filecheck %s
// RUN: kiln-opt %s --split-input-file -p kiln-write-transposed,kiln-fold-transposes,linalg-matmul-to-kernel,kiln-symmetric-products | filecheck %s --check-prefix=FOLD

// np.cov(x.T): x.T - mean written in x's layout (a 6x4 buffer, written through (d1, d0)); the
// product reads it through a transposed view, and the transposed copy of that view folds to the
// buffer itself: a symmetric product of the buffer and its view.
// CHECK-LABEL: func.func @centred_transpose
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<6x4xf64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : memref<6x4xf64>, memref<4x1xf64>) outs(%[[BUF]] : memref<6x4xf64>)
// CHECK:         %[[VIEW:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [4, 6], strides: [1, 4] : memref<6x4xf64> to memref<4x6xf64, strided<[1, 4]>>
// CHECK:         ins(%[[VIEW]] : memref<4x6xf64, strided<[1, 4]>>) outs(%{{.*}} : memref<6x4xf64>)
// CHECK:         ins(%[[VIEW]], %{{.*}} : memref<4x6xf64, strided<[1, 4]>>, memref<6x4xf64>)
// CHECK:         memref.dealloc %[[BUF]] : memref<6x4xf64>
// FOLD-LABEL: func.func @centred_transpose
// FOLD:         %[[BUF:.*]] = memref.alloc() : memref<6x4xf64>
// FOLD:         %[[VIEW:.*]] = memref.reinterpret_cast %[[BUF]]
// FOLD-NOT:     linalg.generic
// FOLD:         kernel.matmul ins(%[[VIEW]], %[[BUF]] : memref<4x6xf64, strided<[1, 4]>>, memref<6x4xf64>) outs(%out : memref<4x4xf64>) symmetric
func.func @centred_transpose(%x: memref<6x4xf64>, %mean: memref<4x1xf64>, %out: memref<4x4xf64>) {
  %c = memref.alloc() : memref<4x6xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : memref<6x4xf64>, memref<4x1xf64>) outs(%c : memref<4x6xf64>) {
  ^bb0(%a: f64, %m: f64, %o: f64):
    %d = arith.subf %a, %m : f64
    linalg.yield %d : f64
  }
  %t = memref.alloc() : memref<6x4xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<4x6xf64>) outs(%t : memref<6x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%out : memref<4x4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c, %t : memref<4x6xf64>, memref<6x4xf64>) outs(%out : memref<4x4xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  memref.dealloc %t : memref<6x4xf64>
  memref.dealloc %c : memref<4x6xf64>
  func.return
}

// -----

// A reader that reads the result as it is laid out (an elementwise op writing its own row-major
// result) would walk it down columns instead: kept.
// CHECK-LABEL: func.func @read_straight
// CHECK:         %[[C:.*]] = memref.alloc() : memref<4x6xf64>
// CHECK-NOT:     reinterpret_cast
func.func @read_straight(%x: memref<6x4xf64>, %out: memref<4x6xf64>) {
  %c = memref.alloc() : memref<4x6xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<6x4xf64>) outs(%c : memref<4x6xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.mulf %a, %a : f64
    linalg.yield %d : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<4x6xf64>) outs(%out : memref<4x6xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.addf %a, %a : f64
    linalg.yield %d : f64
  }
  memref.dealloc %c : memref<4x6xf64>
  func.return
}

// -----

// An input read straight (y) as well as one read transposed (x): either layout strides one of
// them, kept. So is a bare transposed copy (kiln-fold-transposes' case), and a result that
// leaves the function.
// CHECK-LABEL: func.func @mixed
// CHECK-NOT:     reinterpret_cast
// CHECK-LABEL: func.func @bare_copy
// CHECK-NOT:     reinterpret_cast
// CHECK-LABEL: func.func @returned
// CHECK-NOT:     reinterpret_cast
func.func @mixed(%x: memref<6x4xf64>, %y: memref<4x6xf64>, %out: memref<6x4xf64>) {
  %c = memref.alloc() : memref<4x6xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<6x4xf64>, memref<4x6xf64>) outs(%c : memref<4x6xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %d = arith.subf %a, %b : f64
    linalg.yield %d : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<4x6xf64>) outs(%out : memref<6x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.addf %a, %a : f64
    linalg.yield %d : f64
  }
  memref.dealloc %c : memref<4x6xf64>
  func.return
}
func.func @bare_copy(%x: memref<6x4xf64>, %out: memref<6x4xf64>) {
  %c = memref.alloc() : memref<4x6xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<6x4xf64>) outs(%c : memref<4x6xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<4x6xf64>) outs(%out : memref<6x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.addf %a, %a : f64
    linalg.yield %d : f64
  }
  memref.dealloc %c : memref<4x6xf64>
  func.return
}
func.func @returned(%x: memref<6x4xf64>) -> memref<4x6xf64> {
  %c = memref.alloc() : memref<4x6xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<6x4xf64>) outs(%c : memref<4x6xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.mulf %a, %a : f64
    linalg.yield %d : f64
  }
  func.return %c : memref<4x6xf64>
}

// -----

// A complex contraction has no GEMM kernel: it stays loops, which would read the result down its
// columns. Kept.
// CHECK-LABEL: func.func @complex_product
// CHECK-NOT:     reinterpret_cast
func.func @complex_product(%x: memref<6x4xcomplex<f64>>, %b: memref<6x3xcomplex<f64>>, %out: memref<4x3xcomplex<f64>>) {
  %c = memref.alloc() : memref<4x6xcomplex<f64>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<6x4xcomplex<f64>>) outs(%c : memref<4x6xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %o: complex<f64>):
    %d = complex.add %a, %a : complex<f64>
    linalg.yield %d : complex<f64>
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c, %b : memref<4x6xcomplex<f64>>, memref<6x3xcomplex<f64>>) outs(%out : memref<4x3xcomplex<f64>>) {
  ^bb0(%p: complex<f64>, %q: complex<f64>, %acc: complex<f64>):
    %m = complex.mul %p, %q : complex<f64>
    %s = complex.add %acc, %m : complex<f64>
    linalg.yield %s : complex<f64>
  }
  memref.dealloc %c : memref<4x6xcomplex<f64>>
  func.return
}
