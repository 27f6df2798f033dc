// sin, cos, atan, atan2 in a vectorized loop become calls of the vector helpers
// (backends/c/vector_trig.py); lanes that the reduction cannot take go through libm.
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=avx512 unroll=1},canonicalize,cse' -t 'c{isa=avx512}' > %t.c
// RUN: filecheck %s --check-prefix=AVX512 < %t.c
// RUN: cc -c -O2 -Wall -Werror %t.c -o %t.o
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=avx2 unroll=1},canonicalize,cse' -t 'c{isa=avx2}' > %t2.c
// RUN: filecheck %s --check-prefix=AVX2 < %t2.c
// RUN: cc -c -O2 -Wall -Werror %t2.c -o %t2.o
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=scalar unroll=1},canonicalize,cse' -t 'c{isa=scalar}' > %t3.c
// RUN: filecheck %s --check-prefix=SCALAR < %t3.c
// RUN: cc -c -O2 -Wall -Werror -std=gnu11 %t3.c -o %t3.o
// RUN: kiln-opt %s -p 'kiln-vectorize{isa=neon unroll=1},canonicalize,cse' -t 'c{isa=neon}' > %t4.c
// RUN: filecheck %s --check-prefix=NEON < %t4.c
// RUN: %if aarch64-gcc %{ aarch64-linux-gnu-gcc -c -O2 -Wall -Werror %t4.c -o %t4.o %}

// AVX512:       static inline __m512d kiln_vsin_f64(__m512d x) {
// AVX512:         const __mmask8 [[FAR:t[0-9]+]] = _mm512_cmp_pd_mask({{.*}}_mm512_set1_pd(33554432.0), _CMP_NLE_UQ);
// AVX512-NEXT:    if (([[FAR]] != 0)) {
// AVX512:           for (int i = 0; i < 8; i++) if (!(fabs(xs[i]) <= 33554432.0)) ys[i] = sin(xs[i]);
// AVX512:       static inline __m512d kiln_vcos_f64(__m512d x) {
// AVX512:           ys[i] = cos(xs[i]);
// AVX512:       static inline __m512d kiln_vatan2_f64(__m512d y, __m512d x) {
// AVX512:         _mm512_div_pd(
// AVX512:       static inline __m512d kiln_vatan_f64(__m512d x) {
// AVX512-NEXT:    return kiln_vatan2_f64(x, _mm512_set1_pd(1.0));
// AVX512-LABEL: {{^}}void trig(
// AVX512:         for (int64_t i = 0; i < {{.*}}; i += 8) {
// AVX512:           kiln_v8f64 [[S:vec_[0-9]+]] = kiln_vsin_f64([[X:vec_[0-9]+]]);
// AVX512-NEXT:      kiln_v8f64 [[C:vec_[0-9]+]] = kiln_vcos_f64([[X]]);
// AVX512-NEXT:      kiln_v8f64 [[A:vec_[0-9]+]] = kiln_vatan2_f64([[S]], [[C]]);
// AVX512-NEXT:      kiln_v8f64 {{vec_[0-9]+}} = kiln_vatan_f64([[A]]);

// AVX2:         static inline __m256 kiln_vsin_f32(__m256 x) {
// AVX2:           if (_mm256_movemask_ps(
// AVX2:             for (int i = 0; i < 8; i++) if (!(fabsf(xs[i]) <= 65536.0f)) ys[i] = sinf(xs[i]);
// AVX2:         static inline __m256 kiln_vatan2_f32(__m256 y, __m256 x) {
// AVX2-LABEL:   {{^}}void trig32(
// AVX2:           kiln_v8f32 {{vec_[0-9]+}} = kiln_vsin_f32(

// The scalar table cannot test a mask: every register checks its lanes one by one.
// SCALAR:       static inline kiln_g_f64 kiln_vsin_f64(kiln_g_f64 x) {
// SCALAR-NOT:     {{^  }}if (
// SCALAR:         for (int i = 0; i < 2; i++) if (!(fabs(xs[i]) <= 33554432.0)) ys[i] = sin(xs[i]);
// SCALAR-NEXT:    return kiln_g_load_f64(ys);

// NEON:         static inline float64x2_t kiln_vcos_f64(float64x2_t x) {
// NEON:           vfmaq_f64(
// NEON:           ys[i] = cos(xs[i]);

func.func @trig(%x: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf64>
    %s = math.sin %a : f64
    %c = math.cos %a : f64
    %t = math.atan2 %s, %c : f64
    %r = math.atan %t : f64
    memref.store %r, %out[%i] : memref<?xf64>
  }
  func.return
}

func.func @trig32(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %s = math.sin %a : f32
    %t = math.atan2 %s, %a : f32
    memref.store %t, %out[%i] : memref<?xf32>
  }
  func.return
}
