// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -O2 -Wall -Werror -Wno-unused-variable %t.c -o %t.o

// A one-element local that is only loaded and stored (a loop-carried value, an if's result)
// is a plain C scalar, which gcc keeps in a register; as a one-element array (a bool one in
// particular) it can keep a loop from being vectorized.
// CHECK-LABEL: {{^}}void count_even({{.*}}) {
// CHECK:         int64_t [[ACC:[a-z_0-9]+]];
// CHECK:         bool [[FLAG:[a-z_0-9]+]];
// CHECK-NOT:     [[FLAG]][
// CHECK:         [[FLAG]] = {{.*}};
// CHECK:         [[ACC]] = {{.*}};
// A local whose address is taken (here by a subview) stays an array.
// CHECK-LABEL: {{^}}void escapes({{.*}}) {
// CHECK:         double [[BUF:[a-z_0-9]+]][1] __attribute__((aligned(64)));
func.func @count_even(%x: memref<16xi32>, %out: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i32
  %acc = memref.alloca() : memref<i64>
  memref.store %zero, %acc[] : memref<i64>
  scf.for %i = %c0 to %c16 step %c1 {
    %flag = memref.alloca() : memref<i1>
    %v = memref.load %x[%i] : memref<16xi32>
    %bit = arith.andi %v, %one : i32
    %zero32 = arith.constant 0 : i32
    %even = arith.cmpi eq, %bit, %zero32 : i32
    memref.store %even, %flag[] : memref<i1>
    %f = memref.load %flag[] : memref<i1>
    %a = memref.load %acc[] : memref<i64>
    %inc = arith.extui %f : i1 to i64
    %s = arith.addi %a, %inc : i64
    memref.store %s, %acc[] : memref<i64>
  }
  %r = memref.load %acc[] : memref<i64>
  memref.store %r, %out[] : memref<i64>
  func.return
}

func.func @escapes(%out: memref<1xf64>) {
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<1xf64>
  %v = arith.constant 2.5 : f64
  memref.store %v, %buf[%c0] : memref<1xf64>
  %view = memref.subview %buf[0] [1] [1] : memref<1xf64> to memref<1xf64, strided<[1]>>
  %w = memref.load %view[%c0] : memref<1xf64, strided<[1]>>
  memref.store %w, %out[%c0] : memref<1xf64>
  func.return
}
