// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=avx512 unroll=1},canonicalize,cse' -t 'c{isa=avx512}' > %t.c
// RUN: filecheck %s < %t.c
// RUN: cc -c -O2 -Wall -Werror -mavx512f -mavx512dq -mavx512vl -mavx512bw -mfma %t.c -o %t.o
// The target pragma makes the source compile without -m flags too.
// RUN: cc -c -O2 -Wall -Werror %t.c -o %t.o

// CHECK:       #if defined(__GNUC__) && !defined(__clang__)
// CHECK:       #define _IMMINTRIN_H_INCLUDED
// CHECK-NEXT:  #include <avxintrin.h>
// CHECK-NEXT:  #include <avx2intrin.h>
// CHECK-NEXT:  #include <fmaintrin.h>
// CHECK-NEXT:  #include <avx512fintrin.h>
// CHECK-NEXT:  #include <avx512vlintrin.h>
// CHECK-NEXT:  #include <avx512bwintrin.h>
// CHECK-NEXT:  #include <avx512dqintrin.h>
// CHECK-NEXT:  #include <avx512vlbwintrin.h>
// CHECK-NEXT:  #include <avx512vldqintrin.h>
// CHECK-NEXT:  #undef _IMMINTRIN_H_INCLUDED
// CHECK-NEXT:  #else
// CHECK-NEXT:  #include <immintrin.h>
// CHECK-NEXT:  #endif
// CHECK:       #pragma GCC target("avx2,fma,avx512f,avx512dq,avx512vl,avx512bw")
// CHECK:       typedef __m512 kiln_v16f32;
// CHECK:       typedef __mmask16 kiln_m16f32;
// CHECK:       typedef __m512d kiln_v8f64;
// CHECK:       static inline __m512 kiln_vexp_f32(__m512 x) {
// CHECK-NEXT:    const __m512 t0 = _mm512_max_ps(_mm512_set1_ps(-104.0f), x);
// CHECK-NEXT:    const __m512 t1 = _mm512_min_ps(_mm512_set1_ps(89.0f), t0);
// CHECK:         _mm512_scalef_ps(
// CHECK:       static inline __m512 kiln_vlog_f32(__m512 x) {
// CHECK:         _mm512_srli_epi32(
// CHECK-LABEL: {{^}}void kernel(
// CHECK:         for (int64_t i = 0; i < v_2; i += 16) {
// CHECK-NEXT:      kiln_v16f32 vec_1 = _mm512_loadu_ps(&x[i]);
// CHECK-NEXT:      kiln_v16f32 vec_2 = _mm512_loadu_ps(&y[i]);
// CHECK-NEXT:      kiln_v16f32 vec_3 = _mm512_fmadd_ps(vec_1, vec_2, vec);
// CHECK-NEXT:      kiln_v16f32 vec_4 = kiln_vexp_f32(vec_3);
// CHECK-NEXT:      kiln_v16f32 vec_5 = kiln_vlog_f32(vec_2);
// CHECK-NEXT:      kiln_v16f32 vec_6 = kiln_vtanh_f32(vec_5);
// CHECK-NEXT:      kiln_m16f32 vec_7 = _mm512_cmp_ps_mask(vec_1, vec_2, _CMP_NGE_UQ);
// CHECK-NEXT:      kiln_v16f32 vec_8 = _mm512_mask_blend_ps(vec_7, vec_6, vec_4);
// CHECK:           _mm512_storeu_ps(&out[i], vec_9);
// The masked tail: a __mmask16 of the remaining lanes, zero-masked loads, masked stores.
// CHECK:         for (int64_t i_1 = v_2; i_1 < x_d0; i_1 += 16) {
// CHECK:           int count = (int)({{.*}} > 16 ? 16 : {{.*}});
// CHECK-NEXT:      kiln_m16f32 [[M:vec_[0-9]+]] = (__mmask16)((1u << (count)) - 1u);
// CHECK-NEXT:      kiln_v16f32 vec_{{[0-9]+}} = _mm512_maskz_loadu_ps([[M]], &x[i_1]);
// CHECK-NEXT:      kiln_v16f32 vec_{{[0-9]+}} = _mm512_maskz_loadu_ps([[M]], &y[i_1]);
// CHECK:           _mm512_mask_storeu_ps(&out[i_1], [[M]], vec_{{[0-9]+}});
// CHECK-NOT:     expf(
// CHECK-LABEL: {{^}}void dot(
// CHECK:         i += 64
// CHECK:           _mm512_mul_pd(
// CHECK:           _mm512_add_pd(
// CHECK:           _mm512_maskz_loadu_pd(
// CHECK:           _mm512_mask_blend_pd(
