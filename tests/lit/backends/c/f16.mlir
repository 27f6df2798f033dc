// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

// f16 is a storage type: _Float16 locals and buffers, converted to and from float/double
// and integers by casts (each cast rounds once); arithmetic on it is f32 (passes/_scalar.py).
// CHECK-LABEL: void half(_Float16 *restrict a, _Float16 *restrict out, double *restrict wide) {
// CHECK:         _Float16 [[X:.*]] = a[0];
// CHECK-NEXT:    float [[F:.*]] = (float)[[X]];
// CHECK-NEXT:    float [[S:.*]] = [[F]] + 0.5f;
// CHECK-NEXT:    _Float16 [[H:.*]] = (_Float16)[[S]];
// CHECK:         out[0] = [[H]];
// CHECK:         double [[D:.*]] = wide[0];
// CHECK-NEXT:    _Float16 [[T:.*]] = (_Float16)[[D]];
// CHECK-NEXT:    bool {{.*}} = __builtin_isless([[T]], ((_Float16)0.0999755859375));
func.func @half(%a: memref<1xf16>, %out: memref<1xf16>, %wide: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<1xf16>
  %f = arith.extf %x : f16 to f32
  %half = arith.constant 0.5 : f32
  %s = arith.addf %f, %half : f32
  %h = arith.truncf %s : f32 to f16
  memref.store %h, %out[%c0] : memref<1xf16>
  %d = memref.load %wide[%c0] : memref<1xf64>
  %t = arith.truncf %d : f64 to f16
  %k = arith.constant 0.1 : f16
  %m = arith.cmpf olt, %t, %k : f16
  %r = arith.select %m, %t, %k : f16
  memref.store %r, %out[%c0] : memref<1xf16>
  func.return
}
