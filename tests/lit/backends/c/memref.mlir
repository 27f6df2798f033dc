// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

// Helpers come first, only those used.
// CHECK:      static inline void *kiln_alloc(int64_t bytes) {

"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2x3xf32>, initial_value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "state", sym_visibility = "private", type = memref<4xi32>, initial_value}> : () -> ()

// CHECK:      static const float table[6] __attribute__((aligned(64), unused)) = {
// CHECK-NEXT:   1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f
// CHECK-NEXT: };
// CHECK-NEXT: static int32_t state[4] __attribute__((aligned(64), unused));

func.func @views(%a: memref<8x16xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %sub = memref.subview %a[2, 4] [4, 8] [1, 2] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 2], offset: 36>>
  %v = memref.load %sub[%c1, %c2] : memref<4x8xf32, strided<[16, 2], offset: 36>>
  %row = memref.subview %a[3, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1], offset: 48>>
  %w = memref.load %row[%c2] : memref<16xf32, strided<[1], offset: 48>>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<8x16xf32> into memref<128xf32>
  %x = memref.load %flat[%c2] : memref<128xf32>
  %e = memref.expand_shape %flat [[0, 1, 2]] output_shape [2, 4, 16] : memref<128xf32> into memref<2x4x16xf32>
  %y = memref.load %e[%c1, %c1, %c1] : memref<2x4x16xf32>
  %g = memref.get_global @table : memref<2x3xf32>
  %z = memref.load %g[%c1, %c2] : memref<2x3xf32>
  %rc = memref.reinterpret_cast %a to offset: [16], sizes: [4, 4], strides: [4, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[4, 1], offset: 16>>
  %q = memref.load %rc[%c1, %c1] : memref<4x4xf32, strided<[4, 1], offset: 16>>
  %dyn = "memref.cast"(%out) : (memref<4xf32>) -> memref<?xf32>
  %s0 = arith.addf %v, %w : f32
  %s1 = arith.addf %s0, %x : f32
  %s2 = arith.addf %s1, %y : f32
  %s3 = arith.addf %s2, %z : f32
  %s4 = arith.addf %s3, %q : f32
  memref.store %s4, %dyn[%c0] : memref<?xf32>
  func.return
}
// CHECK-LABEL: void views(float *restrict a, float *restrict out) {
// CHECK-NEXT:   float *sub = a + 36;
// CHECK-NEXT:   float v = sub[20];
// CHECK-NEXT:   float *row = a + 48;
// CHECK-NEXT:   float w = row[2];
// CHECK-NEXT:   float x = a[2];
// CHECK-NEXT:   float y = a[81];
// CHECK-NEXT:   float *g = (float *)table;
// CHECK-NEXT:   float z = g[5];
// CHECK-NEXT:   float *rc = a + 16;
// CHECK-NEXT:   float q = rc[5];
// CHECK:        out[0] = s4;

// A column of a seen as 1-D (kiln-bufferize's view of x[:, j]): the stride of its one dimension
// that is not a static 1, not the innermost's.
func.func @column(%a: memref<8x16xf32>, %j: index, %out: memref<f32>) {
  %c3 = arith.constant 3 : index
  %col = memref.subview %a[0, %j] [8, 1] [1, 1] : memref<8x16xf32> to memref<8x1xf32, strided<[16, 1], offset: ?>>
  %flat = memref.collapse_shape %col [[0, 1]] : memref<8x1xf32, strided<[16, 1], offset: ?>> into memref<8xf32, strided<[16], offset: ?>>
  %v = memref.load %flat[%c3] : memref<8xf32, strided<[16], offset: ?>>
  memref.store %v, %out[] : memref<f32>
  func.return
}
// CHECK-LABEL: void column(float *restrict a, int64_t j, float *restrict out) {
// CHECK:        float [[V:.*]] = {{.*}}[48];

func.func @buffers(%n: index, %src: memref<?x4xf64>, %dst: memref<?x4xf64>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %tmp = memref.alloc(%n) : memref<?x4xf64>
  "memref.copy"(%src, %tmp) : (memref<?x4xf64>, memref<?x4xf64>) -> ()
  %st = memref.alloca() : memref<8xf64>
  %empty = memref.alloc() : memref<0xf64>
  %d = memref.dim %tmp, %c0 : memref<?x4xf64>
  %v = memref.load %tmp[%d, %c3] : memref<?x4xf64>
  memref.store %v, %st[%c3] : memref<8xf64>
  %v2 = memref.load %st[%c3] : memref<8xf64>
  memref.store %v2, %dst[%c0, %c0] : memref<?x4xf64>
  %col = memref.subview %tmp[0, 1] [%n, 2] [1, 1] : memref<?x4xf64> to memref<?x2xf64, strided<[4, 1], offset: 1>>
  %dcol = memref.subview %dst[0, 1] [%n, 2] [1, 1] : memref<?x4xf64> to memref<?x2xf64, strided<[4, 1], offset: 1>>
  "memref.copy"(%col, %dcol) : (memref<?x2xf64, strided<[4, 1], offset: 1>>, memref<?x2xf64, strided<[4, 1], offset: 1>>) -> ()
  memref.dealloc %empty : memref<0xf64>
  memref.dealloc %tmp : memref<?x4xf64>
  func.return
}
// CHECK-LABEL: void buffers(int64_t n, double *restrict src, int64_t src_d0, double *restrict dst, int64_t dst_d0) {
// CHECK-NEXT:   double *tmp = (double *)kiln_alloc(n*4*(int64_t)sizeof(double));
// CHECK-NEXT:   memcpy(tmp, src, src_d0*4*sizeof(double));
// CHECK-NEXT:   double st[8] __attribute__((aligned(64)));
// CHECK-NEXT:   double *empty = (double *)kiln_alloc(0);
// CHECK-NEXT:   double v = tmp[n*4 + 3];
// CHECK-NEXT:   st[3] = v;
// CHECK-NEXT:   double v2 = st[3];
// CHECK-NEXT:   dst[0] = v2;
// CHECK-NEXT:   double *col = tmp + 1;
// CHECK-NEXT:   double *dcol = dst + 1;
// CHECK-NEXT:   for (int64_t i0 = 0; i0 < n; i0++) {
// CHECK-NEXT:     for (int64_t i1 = 0; i1 < 2; i1++) {
// CHECK-NEXT:       dcol[i0*4 + i1] = col[i0*4 + i1];
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   free(empty);
// CHECK-NEXT:   free(tmp);
// CHECK-NEXT: }
