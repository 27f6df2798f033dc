// RUN: kiln-opt %s -p kiln-symmetric-products | filecheck %s
// RUN: kiln-opt %s -p kiln-symmetric-products,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p kiln-symmetric-products,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c > %t.c && cc -O2 -march=native -fopenmp -c %t.c -o %t.o

// x.T @ x with the transpose folded into a view of x: B's element (k, n) is A's (n, k), so the
// product is symmetric: the kernel computes the lower triangle and mirrors it, bottom row
// blocks first (the longest), then the epilogue runs once on all rows.
// CHECK-LABEL: func.func @gram
// CHECK:         kernel.matmul ins(%t, %x : memref<96x80xf64, strided<[1, 96]>>, memref<80x96xf64>) outs(%out : memref<96x96xf64>) symmetric {
// C-LABEL: void gram({{.*}}) {
// C:         kiln_gemm_f64_pack_b(80, 96, x, 96, 1,
// C:         for (int64_t [[BLOCK:.*]] = [[BLOCKS:.*]] - 1; [[BLOCK]] >= 0; [[BLOCK]]--) {
// C:           kiln_gemm_f64_syrk_rows(
// C-NOT:     #pragma omp
// C:           kiln_gemm_f64_mirror(
func.func @gram(%x: memref<80x96xf64>, %out: memref<96x96xf64>) {
  %t = memref.reinterpret_cast %x to offset: [0], sizes: [96, 80], strides: [1, 96] : memref<80x96xf64> to memref<96x80xf64, strided<[1, 96]>>
  kernel.matmul ins(%t, %x : memref<96x80xf64, strided<[1, 96]>>, memref<80x96xf64>) outs(%out : memref<96x96xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  func.return
}

// A view of x at another offset is not x's transpose: an ordinary product.
// CHECK-LABEL: func.func @shifted
// CHECK:         kernel.matmul ins(%t, %x : memref<80x80xf64, strided<[1, 81], offset: 1>>, memref<80x80xf64>) outs(%out : memref<80x80xf64>) {
// C-LABEL: void shifted({{.*}}) {
// C-NOT:     syrk_rows
// C:         kiln_gemm_f64_small(80, 80, 80,
func.func @shifted(%x: memref<80x80xf64>, %out: memref<80x80xf64>) {
  %t = memref.reinterpret_cast %x to offset: [1], sizes: [80, 80], strides: [1, 81] : memref<80x80xf64> to memref<80x80xf64, strided<[1, 81], offset: 1>>
  kernel.matmul ins(%t, %x : memref<80x80xf64, strided<[1, 81], offset: 1>>, memref<80x80xf64>) outs(%out : memref<80x80xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  func.return
}

// y = x[1:, 2:]; y.T @ y: the transpose of the strided view y is a copy (kiln-fold-transposes
// folds only row-major sources); its elements are y's, transposed.
// CHECK-LABEL: func.func @view
// CHECK:         kernel.matmul ins(%t, %y : {{.*}}) outs(%out : memref<88x88xf64>) symmetric {
func.func @view(%x: memref<150x90xf64>, %out: memref<88x88xf64>) {
  %y = memref.subview %x[1, 2] [149, 88] [1, 1] : memref<150x90xf64> to memref<149x88xf64, strided<[90, 1], offset: 92>>
  %t = memref.alloc() : memref<88x149xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%t : memref<88x149xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  kernel.matmul ins(%t, %y : memref<88x149xf64>, memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%out : memref<88x88xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %t : memref<88x149xf64>
  func.return
}

// x.T[2:, 1:] @ x[1:, 2:]: a view of the transposed copy of x is the transposed view of x.
// CHECK-LABEL: func.func @slice_of_copy
// CHECK:         kernel.matmul ins(%s, %y : {{.*}}) outs(%out : memref<88x88xf64>) symmetric {
func.func @slice_of_copy(%x: memref<150x90xf64>, %out: memref<88x88xf64>) {
  %t = memref.alloc() : memref<90x150xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%t : memref<90x150xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  %s = memref.subview %t[2, 1] [88, 149] [1, 1] : memref<90x150xf64> to memref<88x149xf64, strided<[150, 1], offset: 301>>
  %y = memref.subview %x[1, 2] [149, 88] [1, 1] : memref<150x90xf64> to memref<149x88xf64, strided<[90, 1], offset: 92>>
  kernel.matmul ins(%s, %y : memref<88x149xf64, strided<[150, 1], offset: 301>>, memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%out : memref<88x88xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %t : memref<90x150xf64>
  func.return
}

// A write to y after its copy: the copy holds y's old elements, not y's transpose.
// CHECK-LABEL: func.func @written_after_copy
// CHECK:         kernel.matmul ins(%t, %y : {{.*}}) outs(%out : memref<88x88xf64>) {
func.func @written_after_copy(%x: memref<150x90xf64>, %out: memref<88x88xf64>) {
  %y = memref.subview %x[1, 2] [149, 88] [1, 1] : memref<150x90xf64> to memref<149x88xf64, strided<[90, 1], offset: 92>>
  %t = memref.alloc() : memref<88x149xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%t : memref<88x149xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  %one = arith.constant 1.0 : f64
  linalg.fill ins(%one : f64) outs(%y : memref<149x88xf64, strided<[90, 1], offset: 92>>)
  kernel.matmul ins(%t, %y : memref<88x149xf64>, memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%out : memref<88x88xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %t : memref<88x149xf64>
  func.return
}

// An op that may write what it is given (a call) after the copy: unknown, so a plain product.
// CHECK-LABEL: func.func @call_after_copy
// CHECK:         kernel.matmul ins(%t, %y : {{.*}}) outs(%out : memref<88x88xf64>) {
func.func private @opaque(memref<150x90xf64>)
func.func @call_after_copy(%x: memref<150x90xf64>, %out: memref<88x88xf64>) {
  %y = memref.subview %x[1, 2] [149, 88] [1, 1] : memref<150x90xf64> to memref<149x88xf64, strided<[90, 1], offset: 92>>
  %t = memref.alloc() : memref<88x149xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%t : memref<88x149xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  }
  func.call @opaque(%x) : (memref<150x90xf64>) -> ()
  kernel.matmul ins(%t, %y : memref<88x149xf64>, memref<149x88xf64, strided<[90, 1], offset: 92>>) outs(%out : memref<88x88xf64>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %t : memref<88x149xf64>
  func.return
}

// y = x.astype(np.float32); y.T @ y: elementwise fusion computes the cast once per reader, the
// transposed one written through swapped maps (kiln-write-transposed) and read through a
// transposed view. The two buffers hold the same elements: symmetric.
// CHECK-LABEL: func.func @cast_twice
// CHECK:         kernel.matmul ins(%v, %c1 : {{.*}}) outs(%out : memref<90x90xf32>) symmetric {
func.func @cast_twice(%x: memref<150x90xf64>, %out: memref<90x90xf32>) {
  %c1 = memref.alloc() : memref<150x90xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%c1 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    linalg.yield %r : f32
  }
  %c2 = memref.alloc() : memref<150x90xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%c2 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    linalg.yield %r : f32
  }
  %v = memref.reinterpret_cast %c2 to offset: [0], sizes: [90, 150], strides: [1, 90] : memref<150x90xf32> to memref<90x150xf32, strided<[1, 90]>>
  kernel.matmul ins(%v, %c1 : memref<90x150xf32, strided<[1, 90]>>, memref<150x90xf32>) outs(%out : memref<90x90xf32>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %c2 : memref<150x90xf32>
  memref.dealloc %c1 : memref<150x90xf32>
  func.return
}

// Casts of two different arrays: different elements.
// CHECK-LABEL: func.func @casts_of_two_arrays
// CHECK:         kernel.matmul ins(%v, %c1 : {{.*}}) outs(%out : memref<90x90xf32>) {
func.func @casts_of_two_arrays(%x: memref<150x90xf64>, %z: memref<150x90xf64>, %out: memref<90x90xf32>) {
  %c1 = memref.alloc() : memref<150x90xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%c1 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    linalg.yield %r : f32
  }
  %c2 = memref.alloc() : memref<150x90xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%z : memref<150x90xf64>) outs(%c2 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    linalg.yield %r : f32
  }
  %v = memref.reinterpret_cast %c2 to offset: [0], sizes: [90, 150], strides: [1, 90] : memref<150x90xf32> to memref<90x150xf32, strided<[1, 90]>>
  kernel.matmul ins(%v, %c1 : memref<90x150xf32, strided<[1, 90]>>, memref<150x90xf32>) outs(%out : memref<90x90xf32>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %c2 : memref<150x90xf32>
  memref.dealloc %c1 : memref<150x90xf32>
  func.return
}

// Two equal generics that add to what their outputs held (0 in one, 1 in the other): their
// elements differ, so a plain product.
// CHECK-LABEL: func.func @accumulated_twice
// CHECK:         kernel.matmul ins(%v, %c1 : {{.*}}) outs(%out : memref<90x90xf32>) {
func.func @accumulated_twice(%x: memref<150x90xf64>, %out: memref<90x90xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c1 = memref.alloc() : memref<150x90xf32>
  linalg.fill ins(%zero : f32) outs(%c1 : memref<150x90xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%c1 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  }
  %c2 = memref.alloc() : memref<150x90xf32>
  linalg.fill ins(%one : f32) outs(%c2 : memref<150x90xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<150x90xf64>) outs(%c2 : memref<150x90xf32>) {
  ^bb0(%a: f64, %o: f32):
    %r = arith.truncf %a : f64 to f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  }
  %v = memref.reinterpret_cast %c2 to offset: [0], sizes: [90, 150], strides: [1, 90] : memref<150x90xf32> to memref<90x150xf32, strided<[1, 90]>>
  kernel.matmul ins(%v, %c1 : memref<90x150xf32, strided<[1, 90]>>, memref<150x90xf32>) outs(%out : memref<90x90xf32>) {
  ^bb0(%b: index, %e: index):
    kernel.yield
  }
  memref.dealloc %c2 : memref<150x90xf32>
  memref.dealloc %c1 : memref<150x90xf32>
  func.return
}
