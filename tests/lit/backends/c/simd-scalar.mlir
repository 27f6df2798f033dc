// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=scalar unroll=1},canonicalize,cse' -t 'c{isa=scalar}' > %t.c
// RUN: filecheck %s < %t.c
// RUN: cc -c -O2 -Wall -Werror -std=gnu11 %t.c -o %t.o
// Forced masked tail: no masked loads in GNU C, so the tail copies through a stack buffer.
// RUN: kiln-opt %inputs/simd-kernels.mlir -p 'kiln-vectorize{isa=scalar tail=masked unroll=1},canonicalize,cse' -t 'c{isa=scalar}' > %t.m.c
// RUN: filecheck %s --check-prefix=MASKED < %t.m.c
// RUN: cc -c -O2 -Wall -Werror -std=gnu11 %t.m.c -o %t.m.o

// No intrinsics and no header: GNU C vectors of 16 bytes.
// CHECK-NOT:   immintrin
// CHECK:       #include <math.h>
// CHECK:       typedef float kiln_g_f32 __attribute__((vector_size(16)));
// CHECK:       typedef kiln_g_f32 kiln_v4f32;
// CHECK:       typedef kiln_g_i32 kiln_m4f32;
// CHECK:       static inline kiln_g_f32 kiln_vexp_f32(kiln_g_f32 x) {
// CHECK-NOT:   _mm
// CHECK-LABEL: {{^}}void kernel(
// CHECK:         for (int64_t i = 0; i < v_2; i += 4) {
// CHECK-NEXT:      kiln_v4f32 vec_1 = kiln_g_load_f32(&x[i]);
// CHECK-NEXT:      kiln_v4f32 vec_2 = kiln_g_load_f32(&y[i]);
// CHECK-NEXT:      kiln_v4f32 vec_3 = kiln_g_fma_f32(vec_1, vec_2, vec);
// CHECK-NEXT:      kiln_v4f32 vec_4 = kiln_vexp_f32(vec_3);
// CHECK:           kiln_m4f32 vec_7 = (~(vec_1 >= vec_2));
// CHECK-NEXT:      kiln_v4f32 vec_8 = ((kiln_g_f32)((vec_7 & (kiln_g_i32)(vec_4)) | (~vec_7 & (kiln_g_i32)(vec_6))));
// CHECK:           kiln_g_store_f32(&out[i], vec_9);
// CHECK-LABEL: {{^}}void dot(
// CHECK:           (vec_{{[0-9]+}} * vec_{{[0-9]+}})
// By default (tail=auto) the scalar ISA keeps the scalar tail.
// CHECK:         for (int64_t {{i_[0-9]+}} = {{.*}}; {{i_[0-9]+}} < x_d0; {{i_[0-9]+}} += 1) {

// MASKED-LABEL: {{^}}void kernel(
// MASKED:         for (int64_t i_1 = v_2; i_1 < x_d0; i_1 += 4) {
// MASKED:           int count = (int)({{.*}} > 4 ? 4 : {{.*}});
// MASKED:           float [[B:tail]][4] __attribute__((aligned(64)));
// MASKED-NEXT:      kiln_g_store_f32(&[[B]][0], vec_{{[0-9]+}});
// MASKED-NEXT:      for (int l = 0; l < count; l++) [[B]][l] = (&x[i_1])[l];
// MASKED-NEXT:      kiln_v4f32 vec_{{[0-9]+}} = kiln_g_load_f32(&[[B]][0]);
// MASKED:           for (int {{l_[0-9]+}} = 0; {{l_[0-9]+}} < count; {{l_[0-9]+}}++) (&out[i_1])[{{l_[0-9]+}}] = {{tail_[0-9]+}}[{{l_[0-9]+}}];
// MASKED-NOT:     expf(
// MASKED-LABEL: {{^}}void dot(
// MASKED:           ((kiln_g_i64){0, 1} < (kiln_g_i64){count, count})
