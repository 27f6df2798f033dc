// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=avx2 unroll=1},canonicalize,cse' -t 'c{isa=avx2}' > %t.c
// RUN: filecheck %s < %t.c
// RUN: cc -c -O2 -Wall -Werror -mavx2 -mfma %t.c -o %t.o
// Vectorized for AVX-512 but emitted for AVX2: each vector<16xf32> is two __m256.
// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=avx512 unroll=1},canonicalize,cse' -t 'c{isa=avx2}' > %t.split.c
// RUN: filecheck %s --check-prefix=SPLIT < %t.split.c
// RUN: cc -c -O2 -Wall -Werror %t.split.c -o %t.split.o
// With the default unroll (4 copies of a body that calls exp), kiln-group-exp makes the copies'
// exps one kvec.exp_group, which tests their inputs for the fast path at once.
// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=avx2},canonicalize,cse,kiln-group-exp' -t 'c{isa=avx2}' > %t.u.c
// RUN: filecheck %s --check-prefix=UNROLL < %t.u.c
// RUN: cc -c -O2 -Wall -Werror -mavx2 -mfma %t.u.c -o %t.u.o

// Only the parts of immintrin.h that AVX2+FMA code uses (the whole header costs gcc ~0.45 s).
// CHECK:       #if defined(__GNUC__) && !defined(__clang__)
// CHECK:       #define _IMMINTRIN_H_INCLUDED
// CHECK-NEXT:  #include <avxintrin.h>
// CHECK-NEXT:  #include <avx2intrin.h>
// CHECK-NEXT:  #include <fmaintrin.h>
// CHECK-NEXT:  #undef _IMMINTRIN_H_INCLUDED
// CHECK-NEXT:  #else
// CHECK-NEXT:  #include <immintrin.h>
// CHECK-NEXT:  #endif
// CHECK-NEXT:  #include <math.h>
// CHECK:       #pragma GCC target("avx2,fma")
// CHECK:       typedef __m256 kiln_v8f32;
// CHECK:       typedef __m256 kiln_m8f32;
// CHECK:       typedef __m256d kiln_v4f64;
// exp's fast-path test: |x| > 86 or NaN.
// CHECK:       static inline __m256 kiln_vexp_far_f32(__m256 x) {
// CHECK-NEXT:    const __m256 t0 = _mm256_cmp_ps(_mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(2147483647))), _mm256_set1_ps(86.0f), _CMP_NLE_UQ);
// The fast path, by table: k = round(x*8/ln2) in t's low bits, 2^(k mod 8 / 8) by vpermps from
// an 8-entry table, and n = k >> 3 added straight into the exponent field (no clamps, no multiply).
// CHECK:       static inline __m256 kiln_vexp_near_f32(__m256 x) {
// CHECK-NEXT:    const __m256 [[T:t[0-9]+]] = _mm256_fmadd_ps(x, _mm256_set1_ps(11.54156f), _mm256_set1_ps(12582912.0f));
// CHECK:         static const float kiln_exp2_8ths[8] = {1.0f, 1.0905077f, 1.1892071f, 1.2968396f, 1.4142135f, 1.5422108f, 1.6817929f, 1.8340081f};
// CHECK-NEXT:    const __m256 [[J:t[0-9]+]] = _mm256_permutevar8x32_ps(_mm256_loadu_ps(kiln_exp2_8ths), _mm256_castps_si256([[T]]));
// CHECK:         const __m256 [[Y:t[0-9]+]] = _mm256_fmadd_ps([[J]], t{{[0-9]+}}, [[J]]);
// CHECK-NEXT:    const __m256 t{{[0-9]+}} = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256([[Y]]), _mm256_slli_epi32(_mm256_srli_epi32(_mm256_castps_si256([[T]]), 3), 23)));
// The general path: clamped, 2^n as two factors so results that underflow round once.
// CHECK:       static inline __m256 kiln_vexp_f32(__m256 x) {
// CHECK-NEXT:    if (!_mm256_movemask_ps(kiln_vexp_far_f32(x))) return kiln_vexp_near_f32(x);
// CHECK-NEXT:    const __m256 [[C:t[0-9]+]] = _mm256_max_ps(_mm256_set1_ps(-104.0f), x);
// CHECK-NEXT:    const __m256 t{{[0-9]+}} = _mm256_min_ps(_mm256_set1_ps(89.0f), [[C]]);
// CHECK:         _mm256_castsi256_ps(_mm256_slli_epi32(
// CHECK:       static inline __m256 kiln_vlog_f32(__m256 x) {
// CHECK:       static inline __m256 kiln_vtanh_f32(__m256 x) {
// CHECK:         kiln_vexp_f32(
// CHECK-LABEL: {{^}}void kernel(
// CHECK:         for (int64_t i = 0; i < v_2; i += 8) {
// CHECK-NEXT:      kiln_v8f32 vec_1 = _mm256_loadu_ps(&x[i]);
// CHECK-NEXT:      kiln_v8f32 vec_2 = _mm256_loadu_ps(&y[i]);
// CHECK-NEXT:      kiln_v8f32 vec_3 = _mm256_fmadd_ps(vec_1, vec_2, vec);
// CHECK-NEXT:      kiln_v8f32 vec_4 = kiln_vexp_f32(vec_3);
// CHECK-NEXT:      kiln_v8f32 vec_5 = kiln_vlog_f32(vec_2);
// CHECK-NEXT:      kiln_v8f32 vec_6 = kiln_vtanh_f32(vec_5);
// CHECK-NEXT:      kiln_m8f32 vec_7 = _mm256_cmp_ps(vec_1, vec_2, _CMP_NGE_UQ);
// CHECK-NEXT:      kiln_v8f32 vec_8 = _mm256_blendv_ps(vec_6, vec_4, vec_7);
// CHECK-NEXT:      kiln_v8f32 vec_9 = _mm256_blendv_ps(_mm256_blendv_ps(_mm256_max_ps(vec_8, vec_1), _mm256_and_ps(vec_8, vec_1), _mm256_cmp_ps(vec_8, vec_1, _CMP_EQ_OQ)), vec_8, _mm256_cmp_ps(vec_8, vec_8, _CMP_UNORD_Q));
// CHECK-NEXT:      _mm256_storeu_ps(&out[i], vec_9);
// The masked tail: one vector iteration over the last n % 8 elements, no scalar libm calls.
// CHECK:         for (int64_t i_1 = v_2; i_1 < x_d0; i_1 += 8) {
// CHECK-NEXT:      int64_t [[R:v_[0-9]+]] = x_d0 - i_1;
// CHECK-NEXT:      int count = (int)([[R]] < 0 ? 0 : [[R]] > 8 ? 8 : [[R]]);
// CHECK-NEXT:      kiln_m8f32 [[M:vec_[0-9]+]] = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
// CHECK-NEXT:      kiln_v8f32 vec_{{[0-9]+}} = _mm256_maskload_ps(&x[i_1], _mm256_castps_si256([[M]]));
// CHECK-NEXT:      kiln_v8f32 vec_{{[0-9]+}} = _mm256_maskload_ps(&y[i_1], _mm256_castps_si256([[M]]));
// CHECK:           kiln_vexp_f32(
// CHECK:           _mm256_maskstore_ps(&out[i_1], _mm256_castps_si256([[M]]), vec_{{[0-9]+}});
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   expf(
// CHECK-LABEL: {{^}}void dot(
// CHECK:           kiln_v4f64 vec_{{[0-9]+}} = _mm256_mul_pd(
// CHECK:           kiln_v4f64 vec_{{[0-9]+}} = _mm256_add_pd(
// A reduction's masked tail: masked-off lanes add the identity (0.0) before combining.
// CHECK:         for (int64_t [[I:i_[0-9]+]] = {{.*}}; [[I]] < x_d0; [[I]] += 4) {
// CHECK:           kiln_m4f64 [[DM:vec_[0-9]+]] = _mm256_castsi256_pd(_mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_setr_epi64x(0, 1, 2, 3)));
// CHECK:           _mm256_maskload_pd(&x[[[I]]], _mm256_castpd_si256([[DM]]));
// CHECK:           _mm256_blendv_pd(vec, vec_{{[0-9]+}}, [[DM]]);
// CHECK:         _mm256_storeu_pd(&{{.*}}_lanes[0], {{.*}});
// CHECK:         for (int l = 1; l < 4; l++) red = red + {{.*}}_lanes[l];

// SPLIT:       typedef struct { __m256 p[2]; } kiln_v16f32;
// SPLIT:       vec_1.p[0] = _mm256_loadu_ps(&x[i]);
// SPLIT-NEXT:  vec_1.p[1] = _mm256_loadu_ps(&x[i + 8]);
// SPLIT:       int count = (int)({{.*}} > 16 ? 16 : {{.*}});
// SPLIT:       .p[1] = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(((count - 8) < 0 ? 0 : (count - 8) > 8 ? 8 : (count - 8))),
// SPLIT:       _mm256_maskload_ps(&x[i_1 + 8], _mm256_castps_si256(vec_{{[0-9]+}}.p[1]));
// SPLIT:       _mm256_maskstore_ps(&out[i_1 + 8], _mm256_castps_si256(vec_{{[0-9]+}}.p[1]), vec_{{[0-9]+}}.p[1]);

// UNROLL-LABEL: {{^}}void kernel(
// UNROLL:         for (int64_t i = 0; i < v_{{[0-9]+}}; i += 32) {
// UNROLL:           kiln_v8f32 [[F0:vec_[0-9]+]] = _mm256_fmadd_ps(
// UNROLL-NEXT:      kiln_v8f32 [[F1:vec_[0-9]+]] = _mm256_fmadd_ps(
// UNROLL-NEXT:      kiln_v8f32 [[F2:vec_[0-9]+]] = _mm256_fmadd_ps(
// UNROLL-NEXT:      kiln_v8f32 [[F3:vec_[0-9]+]] = _mm256_fmadd_ps(
// UNROLL-NEXT:      kiln_v8f32 [[E0:vec_[0-9]+]];
// UNROLL-NEXT:      kiln_v8f32 [[E1:vec_[0-9]+]];
// UNROLL-NEXT:      kiln_v8f32 [[E2:vec_[0-9]+]];
// UNROLL-NEXT:      kiln_v8f32 [[E3:vec_[0-9]+]];
// UNROLL-NEXT:      if (!_mm256_movemask_ps(_mm256_or_ps(_mm256_or_ps(kiln_vexp_far_f32([[F0]]), kiln_vexp_far_f32([[F1]])), _mm256_or_ps(kiln_vexp_far_f32([[F2]]), kiln_vexp_far_f32([[F3]]))))) {
// UNROLL-NEXT:        [[E0]] = kiln_vexp_near_f32([[F0]]);
// UNROLL-NEXT:        [[E1]] = kiln_vexp_near_f32([[F1]]);
// UNROLL-NEXT:        [[E2]] = kiln_vexp_near_f32([[F2]]);
// UNROLL-NEXT:        [[E3]] = kiln_vexp_near_f32([[F3]]);
// UNROLL-NEXT:      } else {
// UNROLL-NEXT:        [[E0]] = kiln_vexp_f32([[F0]]);
// UNROLL-NEXT:        [[E1]] = kiln_vexp_f32([[F1]]);
// UNROLL-NEXT:        [[E2]] = kiln_vexp_f32([[F2]]);
// UNROLL-NEXT:        [[E3]] = kiln_vexp_f32([[F3]]);
// UNROLL-NEXT:      }
// UNROLL-NEXT:      kiln_v8f32 vec_{{[0-9]+}} = kiln_vlog_f32(
// The remainder: whole vectors one at a time (each exp tests its own input), then the masked tail.
// UNROLL:         += 8) {
// UNROLL:           kiln_vexp_f32(
// UNROLL:         += 8) {
// UNROLL:           _mm256_maskstore_ps(
