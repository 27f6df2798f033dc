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
