// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=neon unroll=1},canonicalize,cse' -t 'c{isa=neon}' > %t.c
// RUN: filecheck %s < %t.c
// RUN: %if aarch64-gcc %{ aarch64-linux-gnu-gcc -c -O2 -Wall -Werror %t.c -o %t.o %}
// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=neon tail=masked unroll=1},canonicalize,cse' -t 'c{isa=neon}' > %t.m.c
// RUN: filecheck %s --check-prefix=MASKED < %t.m.c
// RUN: %if aarch64-gcc %{ aarch64-linux-gnu-gcc -c -O2 -Wall -Werror %t.m.c -o %t.m.o %}
// NEON has no masked loads: tail=auto keeps the scalar tail; tail=masked copies through a buffer.
// MASKED-LABEL: {{^}}void kernel(
// MASKED:         for (int l = 0; l < count; l++) tail[l] = (&x[i_1])[l];
// MASKED-LABEL: {{^}}void dot(
// MASKED:         vcltq_s64((int64x2_t){0, 1}, vdupq_n_s64(count))

// CHECK:       #include <arm_neon.h>
// CHECK:       typedef float32x4_t kiln_v4f32;
// CHECK:       typedef uint32x4_t kiln_m4f32;
// CHECK:       typedef float64x2_t kiln_v2f64;
// CHECK:       static inline float32x4_t kiln_vexp_f32(float32x4_t x) {
// CHECK:         vfmaq_f32(
// CHECK:         vreinterpretq_f32_s32(vshlq_n_s32(
// CHECK-LABEL: {{^}}void kernel(
// CHECK:         for (int64_t i = 0; i < v_2; i += 4) {
// CHECK-NEXT:      kiln_v4f32 vec_1 = vld1q_f32(&x[i]);
// CHECK-NEXT:      kiln_v4f32 vec_2 = vld1q_f32(&y[i]);
// CHECK-NEXT:      kiln_v4f32 vec_3 = vfmaq_f32(vec, vec_1, vec_2);
// CHECK-NEXT:      kiln_v4f32 vec_4 = kiln_vexp_f32(vec_3);
// CHECK-NEXT:      kiln_v4f32 vec_5 = kiln_vlog_f32(vec_2);
// CHECK-NEXT:      kiln_v4f32 vec_6 = kiln_vtanh_f32(vec_5);
// CHECK-NEXT:      kiln_m4f32 vec_7 = vmvnq_u32(vcgeq_f32(vec_1, vec_2));
// CHECK-NEXT:      kiln_v4f32 vec_8 = vbslq_f32(vec_7, vec_4, vec_6);
// CHECK-NEXT:      kiln_v4f32 vec_9 = vmaxq_f32(vec_8, vec_1);
// CHECK-NEXT:      vst1q_f32(&out[i], vec_9);
// CHECK-LABEL: {{^}}void dot(
// CHECK:           vmulq_f64(
// CHECK:           vaddq_f64(
// CHECK:         vst1q_f64(&{{.*}}_lanes[0], {{.*}});
