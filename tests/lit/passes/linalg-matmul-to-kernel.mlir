// RUN: kiln-opt %s -p linalg-matmul-to-kernel | filecheck %s
// RUN: kiln-opt %s -p linalg-matmul-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p linalg-matmul-to-kernel,linalg-generalize-named-ops,convert-linalg-to-loops,lower-affine,canonicalize,cse -t c > %t.c && cc -O2 -march=native -fopenmp -c %t.c -o %t.o && cc -O2 -Wall -Werror -c %t.c -o %t.o

// relu(x @ w + b): fill + matmul generic + elementwise epilogue become one kernel.matmul
// writing %out, the epilogue re-indexed onto the row block just computed.
// CHECK-LABEL: func.func @linear
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.matmul ins(%x, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%out : memref<64x48xf32>) {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: index, %[[END:.*]]: index):
// CHECK:           %[[ROWS:.*]] = memref.subview %out[%[[BEGIN]], 0]
// CHECK:           linalg.generic {{.*}} ins(%[[ROWS]], %b : {{.*}}) outs(%{{.*}} :
// CHECK:             arith.maximumf
// CHECK:           kernel.yield
// CHECK-NOT:     linalg.generic

// With AVX-512 the micro-kernel broadcasts each A element into a register for its row's FMAs.
// C:       #define KG_BCAST "vbroadcastss %1, %0"
// C-NEXT:  #define KG_FMA "vfmadd231ps %2, %1, %0"

// A static product of at most 2^20 multiply-adds over whole 16-column panels reads A and B in
// place (no packing) on the calling thread: no OpenMP region.
// C-LABEL: void linear({{.*}}) {
// C-NOT:     pack_b
// C:         kiln_gemm_f32_small(64, 48, 32, x, 32, 1, w, 48, out, 48);
// C-NOT:     #pragma omp
// C:         for (
func.func @linear(%x: memref<64x32xf32>, %w: memref<32x48xf32>, %b: memref<48xf32>, %out: memref<64x48xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  %1 = memref.alloc() : memref<64x48xf32>
  linalg.fill ins(%0 : f32) outs(%1 : memref<64x48xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<64x32xf32>, memref<32x48xf32>) outs(%1 : memref<64x48xf32>) {
  ^bb0(%2: f32, %3: f32, %4: f32):
    %5 = arith.mulf %2, %3 : f32
    %6 = arith.addf %4, %5 : f32
    linalg.yield %6 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%1, %b : memref<64x48xf32>, memref<48xf32>) outs(%out : memref<64x48xf32>) {
  ^bb0(%7: f32, %8: f32, %9: f32):
    %10 = arith.addf %7, %8 : f32
    %11 = arith.maximumf %10, %0 : f32
    linalg.yield %11 : f32
  }
  memref.dealloc %1 : memref<64x48xf32>
  func.return
}

// An optimizer's update w = w - lr * (x.T @ g) into w itself: the epilogue reads w, so the
// product stays in its own buffer %c (not w, which it would overwrite before w is read), and
// each row block of %c is read by the update right after it is computed.
// CHECK-LABEL: func.func @update
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.matmul ins(%xt, %g : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>) {
// CHECK-NEXT:    ^bb0(%[[BEGIN:.*]]: index, %[[END:.*]]: index):
// CHECK:           %[[W:.*]] = memref.subview %w[%[[BEGIN]], 0]
// CHECK-NEXT:      %[[CROWS:.*]] = memref.subview %c[%[[BEGIN]], 0]
// CHECK:           linalg.generic {{.*}} ins(%[[W]], %lr, %[[CROWS]] : {{.*}}) outs(%{{.*}} :
// CHECK:             arith.subf
// CHECK:           kernel.yield
// CHECK-NOT:     linalg.generic
// C-LABEL: void update({{.*}}) {
// C:         kiln_gemm_f32_small(64, 48, 32, xt, 32, 1, g, 48, c, 48);
// C:         for (
func.func @update(%xt: memref<64x32xf32>, %g: memref<32x48xf32>, %lr: memref<f32>, %w: memref<64x48xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  %c = memref.alloc() : memref<64x48xf32>
  linalg.fill ins(%0 : f32) outs(%c : memref<64x48xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %g : memref<64x32xf32>, memref<32x48xf32>) outs(%c : memref<64x48xf32>) {
  ^bb0(%2: f32, %3: f32, %4: f32):
    %5 = arith.mulf %2, %3 : f32
    %6 = arith.addf %4, %5 : f32
    linalg.yield %6 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w, %lr, %c : memref<64x48xf32>, memref<f32>, memref<64x48xf32>) outs(%w : memref<64x48xf32>) {
  ^bb0(%7: f32, %8: f32, %9: f32, %10: f32):
    %11 = arith.mulf %8, %9 : f32
    %12 = arith.subf %7, %11 : f32
    linalg.yield %12 : f32
  }
  memref.dealloc %c : memref<64x48xf32>
  func.return
}

// A @ x: the matrix read through (i, k), the fill removed.
// CHECK-LABEL: func.func @matvec
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.matvec ins(%a, %x : memref<50x40xf64>, memref<40xf64>) outs(%y : memref<50xf64>)
// CHECK-NEXT:    func.return
// C-LABEL: void matvec({{.*}}) {
// C:         kiln_gemv_f64_part(0, 50, 40, a, 40, 1, x, 1, y, 1);
func.func @matvec(%a: memref<50x40xf64>, %x: memref<40xf64>, %y: memref<50xf64>) {
  %0 = arith.constant 0.000000e+00 : f64
  linalg.fill ins(%0 : f64) outs(%y : memref<50xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a, %x : memref<50x40xf64>, memref<40xf64>) outs(%y : memref<50xf64>) {
  ^bb0(%1: f64, %2: f64, %3: f64):
    %4 = arith.mulf %1, %2 : f64
    %5 = arith.addf %3, %4 : f64
    linalg.yield %5 : f64
  }
  func.return
}

// x @ A: the matrix read through (k, i); the kernel gets A's strides swapped (rows of A are
// contiguous columns of A's transpose: the axpy form). Past 2^16 multiply-adds the output is
// split in the runtime's steps, which the threads claim as they come (on one thread, one step:
// each pass over A's rows reads all of each row's run); whether a team runs it is the product's
// own measurement (kiln_site_threads), recorded after it (kiln_site_done).
// CHECK-LABEL: func.func @vecmat
// CHECK-NOT:     linalg.fill
// CHECK:         kernel.vecmat ins(%x, %a : memref<2000xf32>, memref<2000x3000xf32>) outs(%y : memref<3000xf32>)
// C-LABEL: void vecmat({{.*}}) {
// C:         static kiln_site [[SITE:.*]];
// C-NEXT:    const int [[BIG:.*]] = (double)(3000) * (2000) >= 65536;
// C-NEXT:    const int [[NT:.*]] = [[BIG]] ? kiln_site_threads(&[[SITE]]) : 1;
// C-NEXT:    const int64_t [[START:.*]] = [[BIG]] ? kiln_site_clock() : 0;
// C:         const int64_t [[STEP:.*]] = kiln_gemv_f32_step(3000, 1, 3000, [[NT]]);
// C:         #pragma omp parallel for num_threads([[NT]]) if ([[NT]] > 1) schedule(dynamic, 1)
// C:         kiln_gemv_f32_part({{.*}}, 2000, a, 1, 3000, x, 1, y, 1);
// C:         if ([[BIG]]) kiln_site_done(&[[SITE]], (int64_t)(3000) * (2000), [[NT]], [[START]]);
func.func @vecmat(%x: memref<2000xf32>, %a: memref<2000x3000xf32>, %y: memref<3000xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%0 : f32) outs(%y : memref<3000xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %a : memref<2000xf32>, memref<2000x3000xf32>) outs(%y : memref<3000xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  }
  func.return
}

// A batched matmul: an scf.for over the batch (marked parallel, weight m*n*k/16), the 2-D
// kernel on rank-reduced slices (packed: 40 columns end in a ragged panel); a batch result of 0 (a broadcast) stays at 0.
// (Here A is broadcast: with B broadcast, the product would collapse like @batched_shared_rhs.)
// CHECK-LABEL: func.func @batched
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[A2:.*]] = memref.subview %a[0, 0, 0] [1, 64, 32] [1, 1, 1] : memref<1x64x32xf64> to memref<64x32xf64, strided<[32, 1], offset: ?>>
// CHECK-NEXT:      %[[B2:.*]] = memref.subview %b[%[[B]], 0, 0] [1, 32, 40] [1, 1, 1] : memref<8x32x40xf64> to memref<32x40xf64, strided<[40, 1], offset: ?>>
// CHECK-NEXT:      %[[C2:.*]] = memref.subview %c[%[[B]], 0, 0] [1, 64, 40] [1, 1, 1] : memref<8x64x40xf64> to memref<64x40xf64, strided<[40, 1], offset: ?>>
// CHECK-NEXT:      kernel.matmul ins(%[[A2]], %[[B2]] : {{.*}}) outs(%[[C2]] : {{.*}})
// CHECK:         } {kiln.parallel = 5120 : i64}
// C-LABEL: void batched({{.*}}) {
// C:         for (int64_t [[I:.*]] = 0; [[I]] < 8; [[I]] += 1) {
// C:           kiln_gemm_f64_pack_b(32, 40,
// C-NOT:       #pragma omp
// C:           kiln_gemm_f64_rows(
func.func @batched(%a: memref<1x64x32xf64>, %b: memref<8x32x40xf64>, %c: memref<8x64x40xf64>) {
  %0 = arith.constant 0.000000e+00 : f64
  linalg.fill ins(%0 : f64) outs(%c : memref<8x64x40xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<1x64x32xf64>, memref<8x32x40xf64>) outs(%c : memref<8x64x40xf64>) {
  ^bb0(%1: f64, %2: f64, %3: f64):
    %4 = arith.mulf %1, %2 : f64
    %5 = arith.addf %3, %4 : f64
    linalg.yield %5 : f64
  }
  func.return
}

// B without batch dims, A and C contiguous: (batch, m) is one row axis, one GEMM packs B once.
// CHECK-LABEL: func.func @batched_shared_rhs
// CHECK:         %[[A2:.*]] = memref.collapse_shape %a {{\[}}[0 : i64, 1 : i64], [2 : i64]] : memref<?x6x5xf32> into memref<?x5xf32>
// CHECK-NEXT:    %[[C2:.*]] = memref.collapse_shape %c {{\[}}[0 : i64, 1 : i64], [2 : i64]] : memref<?x6x4xf32> into memref<?x4xf32>
// CHECK-NEXT:    kernel.matmul ins(%[[A2]], %b : memref<?x5xf32>, memref<5x4xf32>) outs(%[[C2]] : memref<?x4xf32>)
// CHECK-NOT:     scf.for
// Its rows are known at run time only: a team of threads claims B's column panels, then C's
// row blocks, one at a time as they come (a thread that starts late leaves its share to the others).
// C-LABEL: void batched_shared_rhs({{.*}}) {
// C:         const int [[GT:.*]] = [[GBIG:.*]] ? kiln_site_threads(&[[GSITE:.*]]) : 1;
// C:         #pragma omp parallel num_threads([[GT]]) if ([[GT]] > 1)
// C:         #pragma omp for schedule(dynamic, 1)
// C-NEXT:    #endif
// C-NEXT:    for (int64_t [[P:.*]] = 0; [[P]] < kiln_gemm_f32_panels(4); [[P]]++) {
// C-NEXT:      kiln_gemm_f32_pack_b(
// C:         #pragma omp for schedule(dynamic, 1)
// C-NEXT:    #endif
// C-NEXT:    for (int64_t [[R:.*]] = 0; [[R]] < [[NB:.*]]; [[R]]++) {
// C:         if ([[GBIG]]) kiln_site_done(&[[GSITE]], (int64_t)({{.*}}) * (4) * (5), [[GT]], {{.*}});
func.func @batched_shared_rhs(%a: memref<?x6x5xf32>, %b: memref<5x4xf32>, %c: memref<?x6x4xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%0 : f32) outs(%c : memref<?x6x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<?x6x5xf32>, memref<5x4xf32>) outs(%c : memref<?x6x4xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  }
  func.return
}

// A batched product with B transposed per item ((b, n, k) read as (d0, d2, d3)) is no GEMM
// slice: it stays a generic.
// CHECK-LABEL: func.func @batched_transposed_rhs
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK-NOT:     kernel.matmul
func.func @batched_transposed_rhs(%a: memref<3x6x5xf64>, %b: memref<3x4x5xf64>, %c: memref<3x6x4xf64>) {
  %0 = arith.constant 0.000000e+00 : f64
  linalg.fill ins(%0 : f64) outs(%c : memref<3x6x4xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : memref<3x6x5xf64>, memref<3x4x5xf64>) outs(%c : memref<3x6x4xf64>) {
  ^bb0(%1: f64, %2: f64, %3: f64):
    %4 = arith.mulf %1, %2 : f64
    %5 = arith.addf %3, %4 : f64
    linalg.yield %5 : f64
  }
  func.return
}

// A product of at most 8 rows streams B unpacked; its column steps are claimed by the threads as
// they come.
// CHECK-LABEL: func.func @skinny
// CHECK:         kernel.matmul
// C-LABEL: void skinny({{.*}}) {
// C:         #pragma omp parallel for num_threads(kiln_num_threads()) if ({{.*}} >= 2097152) schedule(dynamic, 1)
// C-NEXT:    #endif
// C-NEXT:    for (int64_t [[J:.*]] = 0; [[J]] < {{.*}}; [[J]] += [[STEP:.*]]) {
// C-NEXT:      kiln_gemm_f32_skinny(4,
func.func @skinny(%a: memref<4x?xf32>, %b: memref<?x?xf32>, %c: memref<4x?xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%0 : f32) outs(%c : memref<4x?xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x?xf32>, memref<?x?xf32>) outs(%c : memref<4x?xf32>) {
  ^bb0(%1: f32, %2: f32, %3: f32):
    %4 = arith.mulf %1, %2 : f32
    %5 = arith.addf %3, %4 : f32
    linalg.yield %5 : f32
  }
  func.return
}
