// RUN: kiln-opt %s -p kiln-loops-simplify | filecheck %s
// RUN: kiln-opt %s -p kiln-loops-simplify -t 'c{isa=avx2}' > %t.c
// RUN: filecheck %s --check-prefix=C < %t.c
// RUN: cc -c -O2 -Wall -Werror %t.c -o %t.o

// kiln's loop-level rules (passes/rules/library/loops-*.rules; each has its own test in
// tests/lit/rules/): x * 2.0 is x + x, on vectors and scalars: the same value for every x
// (inf, NaN, -0), on an adder, leaving the multiply/FMA ports to exp's polynomial in chains
// like relu(2x+1)*sigmoid(x).
// CHECK-LABEL: func.func @doubling
// CHECK-NEXT:    %m = arith.addf %a, %a : vector<8xf32>
// CHECK-NEXT:    %n = arith.addf %s, %s : f64
// CHECK-NEXT:    func.return %m, %n
// C-LABEL: doubling(
// C:         kiln_v8f32 m = _mm256_add_ps(a, a);
// C:         double n = s + s;
func.func @doubling(%a: vector<8xf32>, %s: f64) -> (vector<8xf32>, f64) {
  %c2 = arith.constant 2.0 : f32
  %b = vector.broadcast %c2 : f32 to vector<8xf32>
  %m = arith.mulf %b, %a : vector<8xf32>
  %d2 = arith.constant 2.0 : f64
  %n = arith.mulf %s, %d2 : f64
  func.return %m, %n : vector<8xf32>, f64
}

// In a vectorized body: any other constant stays a multiply.
// CHECK-LABEL: func.func @scale
// CHECK:         %v = vector.load
// CHECK-NEXT:    %a = arith.addf %v, %v : vector<8xf32>
// CHECK-NEXT:    %b = arith.addf %v, %v : vector<8xf32>
// CHECK-NEXT:    %c = arith.mulf %v, %v3 : vector<8xf32>
// C-LABEL: {{^}}void scale({{.*}}) {
// C:         kiln_v8f32 [[X:[a-z_0-9]+]] = _mm256_loadu_ps(&x[0]);
// C-NEXT:    kiln_v8f32 {{.*}} = _mm256_add_ps([[X]], [[X]]);
// C-NEXT:    kiln_v8f32 {{.*}} = _mm256_add_ps([[X]], [[X]]);
// C-NEXT:    kiln_v8f32 {{.*}} = _mm256_mul_ps([[X]], {{.*}});
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
