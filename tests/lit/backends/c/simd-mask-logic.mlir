// RUN: kiln-opt %s -p 'kiln-vectorize{isa=avx512},canonicalize,cse' -t 'c{isa=avx512}' > %t.c
// RUN: filecheck %s --check-prefix=AVX512 < %t.c
// RUN: cc -c -O2 -Wall -Werror %t.c -o %t.o
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=avx2},canonicalize,cse' -t 'c{isa=avx2}' > %t2.c
// RUN: filecheck %s --check-prefix=AVX2 < %t2.c
// RUN: cc -c -O2 -Wall -Werror %t2.c -o %t2.o
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=scalar width=256},canonicalize,cse' -t 'c{isa=scalar}' > %t3.c
// RUN: cc -c -O2 -Wall -Werror %t3.c -o %t3.o

// and/or of comparison masks (a masked mean's np.logical_and): the ISA's mask and/or, in the
// mask type of the comparisons' width.
// AVX512:      kiln_m8f64 [[GE:.*]] = _mm512_cmp_pd_mask({{.*}}, _CMP_GE_OQ);
// AVX512:      kiln_m8f64 [[LT:.*]] = _mm512_cmp_pd_mask({{.*}}, _CMP_LT_OQ);
// AVX512:      kiln_m8f64 [[IN:.*]] = (__mmask8)([[GE]] & [[LT]]);
// AVX512:      kiln_m8f64 [[OR:.*]] = (__mmask8)([[IN]] | [[GE]]);
// AVX512:      _mm512_mask_blend_pd([[IN]],
// AVX512:      _mm512_mask_blend_pd([[OR]],
// AVX2:        kiln_m4f64 [[IN:.*]] = _mm256_and_pd(
// AVX2:        kiln_m4f64 {{.*}} = _mm256_or_pd([[IN]],
func.func @mask_logic(%x: memref<?xf64>, %y: memref<?xf64>, %sum: memref<f64>, %count: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo = arith.constant 0.25 : f64
  %hi = arith.constant 0.5 : f64
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %b = memref.load %y[%i] : memref<?xf64>
    %s = memref.load %sum[] : memref<f64>
    %k = memref.load %count[] : memref<f64>
    %ge = arith.cmpf oge, %a, %lo : f64
    %lt = arith.cmpf olt, %a, %hi : f64
    %in = arith.andi %ge, %lt : i1
    %or = arith.ori %in, %ge : i1
    %v = arith.select %in, %b, %zero : f64
    %w = arith.select %or, %one, %zero : f64
    %s2 = arith.addf %s, %v : f64
    %k2 = arith.addf %k, %w : f64
    memref.store %s2, %sum[] : memref<f64>
    memref.store %k2, %count[] : memref<f64>
  }
  func.return
}
