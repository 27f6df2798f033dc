// RUN: kiln-opt %s --split-input-file -p kiln-interchange-loops | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'kiln-interchange-loops,kiln-parallel-loops,convert-linalg-to-loops,kiln-vectorize{isa=avx2}' | filecheck %s --check-prefix=VEC

// np.cov's mean of data.T along axis 1: a sum over d1 of x[d1, d0]. The inner loop walked down
// a column of x; with d0 innermost it reads x's rows and vectorizes. Each out[i] still adds
// x[0, i], x[1, i], ... in that order.
// CHECK-LABEL: func.func @transposed_rows
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// VEC-LABEL: func.func @transposed_rows
// VEC:         scf.for
// VEC:           scf.for
// VEC:             vector.load %x
// VEC:             vector.load %out
// VEC:             arith.addf
// VEC:             vector.store
func.func @transposed_rows(%x: memref<64x128xf32>, %out: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// Through a transposed view (kiln-fold-transposes' reinterpret_cast): the strides say which
// dimension is contiguous.
// CHECK-LABEL: func.func @transposed_view
// CHECK:         iterator_types = ["reduction", "parallel"]
func.func @transposed_view(%x: memref<128x64xf64, strided<[1, 128]>>, %out: memref<128xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<128x64xf64, strided<[1, 128]>>) outs(%out : memref<128xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}

// -----

// Row sums and a transposing copy: an operand is already contiguous in the innermost loop.
// CHECK-LABEL: func.func @kept
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]
func.func @kept(%x: memref<64x128xf32>, %rows: memref<64xf32>, %t: memref<128x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%rows : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x128xf32>) outs(%t : memref<128x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  func.return
}

// -----

// Three dimensions: d1, the last index of x and of out, moves innermost and the others keep
// their order; a body that reads linalg.index keeps the generic as it is.
// CHECK-LABEL: func.func @three
// CHECK:         indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-LABEL: func.func @indexed
// CHECK:         iterator_types = ["parallel", "reduction"]
func.func @three(%x: memref<4x64x128xf32>, %out: memref<4x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<4x64x128xf32>) outs(%out : memref<4x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  func.return
}
func.func @indexed(%x: memref<64x128xf32>, %out: memref<128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %a, %f : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// A short reduction innermost (2: stockham_fft's radix-2 DFT matrix times a 2 x 4096 matrix,
// complex, no kernel): d1 walks the right-hand side and the output contiguously, d2 only the
// 2 x 2 matrix, so d1 moves innermost; each output still adds its 2 terms in order. With 16
// steps of d2 the reduction stays innermost; so it does where the short loop is the only one
// walking an operand contiguously (a sum over the 3 columns of an N x 3 array).
// CHECK-LABEL: func.func @short_reduction
// CHECK:         indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-LABEL: func.func @long_reduction
// CHECK:         iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-LABEL: func.func @row_sums
// CHECK:         iterator_types = ["parallel", "reduction"]
func.func @short_reduction(%m: memref<2x2xcomplex<f64>>, %x: memref<2x4096xcomplex<f64>>, %out: memref<2x4096xcomplex<f64>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%m, %x : memref<2x2xcomplex<f64>>, memref<2x4096xcomplex<f64>>) outs(%out : memref<2x4096xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %acc: complex<f64>):
    %p = complex.mul %a, %b : complex<f64>
    %s = complex.add %acc, %p : complex<f64>
    linalg.yield %s : complex<f64>
  }
  func.return
}
func.func @long_reduction(%m: memref<2x16xcomplex<f64>>, %x: memref<16x4096xcomplex<f64>>, %out: memref<2x4096xcomplex<f64>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%m, %x : memref<2x16xcomplex<f64>>, memref<16x4096xcomplex<f64>>) outs(%out : memref<2x4096xcomplex<f64>>) {
  ^bb0(%a: complex<f64>, %b: complex<f64>, %acc: complex<f64>):
    %p = complex.mul %a, %b : complex<f64>
    %s = complex.add %acc, %p : complex<f64>
    linalg.yield %s : complex<f64>
  }
  func.return
}
func.func @row_sums(%x: memref<1000x3xf64>, %out: memref<1000xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1000x3xf64>) outs(%out : memref<1000xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %acc, %a : f64
    linalg.yield %s : f64
  }
  func.return
}
