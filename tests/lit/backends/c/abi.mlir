// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

func.func private @ext_scale(f32) -> f32

func.func private @divmod(%a: i64, %b: i64) -> (i64, i64) {
  %q = arith.divsi %a, %b : i64
  %r = arith.remsi %a, %b : i64
  func.return %q, %r : i64, i64
}

func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
  %m = arith.mulf %a, %x : f32
  %r = arith.addf %m, %y : f32
  %s = func.call @ext_scale(%r) : (f32) -> f32
  func.return %s : f32
}

func.func @scale(%x: memref<?x?xf32>, %k: f32, %out: memref<?x?xf32>, %scalar: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %w = arith.mulf %v, %k : f32
      memref.store %w, %out[%i, %j] : memref<?x?xf32>
    }
  }
  memref.store %k, %scalar[] : memref<f32>
  func.return
}

func.func @use(%a: i64, %b: i64, %x: memref<?x?xf32>, %o: memref<?x?xf32>, %s: memref<f32>) -> i64 {
  %q, %r = func.call @divmod(%a, %b) : (i64, i64) -> (i64, i64)
  %k = arith.constant 2.0 : f32
  func.call @scale(%x, %k, %o, %s) : (memref<?x?xf32>, f32, memref<?x?xf32>, memref<f32>) -> ()
  %t = arith.addi %q, %r : i64
  func.return %t : i64
}

// CHECK:      extern float ext_scale(float a0);
// CHECK-NEXT: static int64_t divmod(int64_t a, int64_t b, int64_t *restrict out1);
// CHECK-NEXT: __attribute__((visibility("default"))) float axpy(float a, float x, float y);
// CHECK-NEXT: __attribute__((visibility("default"))) void scale(float *restrict x, int64_t x_d0, int64_t x_d1, float k, float *restrict out, int64_t out_d0, int64_t out_d1, float *restrict scalar);

// CHECK-LABEL: static int64_t divmod(int64_t a, int64_t b, int64_t *restrict out1) {
// CHECK:        *out1 = r;
// CHECK-NEXT:   return q;

// CHECK-LABEL: float axpy(float a, float x, float y) {
// CHECK:        float s = ext_scale(r);

// CHECK-LABEL: void scale(float *restrict x, int64_t x_d0, int64_t x_d1, float k, float *restrict out, int64_t out_d0, int64_t out_d1, float *restrict scalar) {
// CHECK-NEXT:   for (int64_t i = 0; i < x_d0; i += 1) {
// CHECK-NEXT:     for (int64_t j = 0; j < x_d1; j += 1) {
// CHECK-NEXT:       float v = x[i*x_d1 + j];
// CHECK-NEXT:       float w = v * k;
// CHECK-NEXT:       out[i*out_d1 + j] = w;
// CHECK:        scalar[0] = k;

// CHECK-LABEL: int64_t use(int64_t a, int64_t b, float *restrict x, int64_t x_d0, int64_t x_d1, float *restrict o, int64_t o_d0, int64_t o_d1, float *restrict s) {
// CHECK-NEXT:   int64_t r;
// CHECK-NEXT:   int64_t q = divmod(a, b, &r);
// CHECK-NEXT:   scale(x, x_d0, x_d1, 2.0f, o, o_d0, o_d1, s);
