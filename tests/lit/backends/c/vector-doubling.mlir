// RUN: kiln-opt %s -t 'c{isa=avx2}' | filecheck %s
// RUN: kiln-opt %s -t 'c{isa=avx2}' > %t.c && cc -c -O2 -Wall -Werror -Wno-unused-variable %t.c -o %t.o

// x * 2.0 on vectors is x + x: the same value for every x (inf, NaN, -0), and it runs on an
// adder, leaving the multiply/FMA ports to exp's polynomial in chains like relu(2x+1)*sigmoid(x).
// Any other constant stays a multiply.
// CHECK-LABEL: {{^}}void scale({{.*}}) {
// CHECK:         kiln_v8f32 [[X:[a-z_0-9]+]] = _mm256_loadu_ps(&x[0]);
// CHECK-NEXT:    kiln_v8f32 {{.*}} = _mm256_add_ps([[X]], [[X]]);
// CHECK-NEXT:    kiln_v8f32 {{.*}} = _mm256_add_ps([[X]], [[X]]);
// CHECK-NEXT:    kiln_v8f32 {{.*}} = _mm256_mul_ps([[X]], {{.*}});
func.func @scale(%x: memref<8xf32>, %out: memref<24xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %v2 = vector.broadcast %two : f32 to vector<8xf32>
  %v3 = vector.broadcast %three : f32 to vector<8xf32>
  %v = vector.load %x[%c0] : memref<8xf32>, vector<8xf32>
  %a = arith.mulf %v, %v2 : vector<8xf32>
  %b = arith.mulf %v2, %v : vector<8xf32>
  %c = arith.mulf %v, %v3 : vector<8xf32>
  vector.store %a, %out[%c0] : memref<24xf32>, vector<8xf32>
  vector.store %b, %out[%c8] : memref<24xf32>, vector<8xf32>
  vector.store %c, %out[%c16] : memref<24xf32>, vector<8xf32>
  func.return
}
