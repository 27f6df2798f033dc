// RUN: kiln-opt %s -p kiln-divide-by-constants | filecheck %s
// RUN: kiln-opt %s -p kiln-divide-by-constants -t 'c{isa=avx512}' | filecheck %s --check-prefix=C

// x / 9: zh = RN(1/9), zl = RN(1/9 - zh); fma(x, zh, x * zl) where |x| lies in the proven
// range (x * zl and x / 9 normal, x * zl finite), the division itself elsewhere (zeros,
// subnormal quotients, infinities, NaN).
// CHECK-LABEL: func.func @by_nine
// CHECK:         %[[A:.*]] = math.absf %x : f64
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 1.2826677504057426e-290 : f64
// CHECK-NEXT:    %[[GE:.*]] = arith.cmpf oge, %[[A]], %[[LO]] : f64
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 1.7976931348623157e+308 : f64
// CHECK-NEXT:    %[[LE:.*]] = arith.cmpf ole, %[[A]], %[[HI]] : f64
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK-NEXT:    %q = scf.if %[[IN]] -> (f64) {
// CHECK-NEXT:      %[[ZL:.*]] = arith.constant 6.1679056923619804e-18 : f64
// CHECK-NEXT:      %[[U:.*]] = arith.mulf %x, %[[ZL]] : f64
// CHECK-NEXT:      %[[ZH:.*]] = arith.constant 0.1111111111111111 : f64
// CHECK-NEXT:      %[[F:.*]] = math.fma %x, %[[ZH]], %[[U]] : f64
// CHECK-NEXT:      scf.yield %[[F]] : f64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[D:.*]] = arith.divf %x, %nine : f64
// CHECK-NEXT:      scf.yield %[[D]] : f64
// CHECK-NEXT:    }
// f32 has its own pair (here zl < 0).
// CHECK:         %r = scf.if
// CHECK:           arith.constant -8.27842295e-10 : f32
// CHECK:           math.fma %y, %{{.*}}, %{{.*}} : f32
// A power of two (gcc multiplies by it), a divisor the test refuses (1.8924385897581464: its hard
// case X = 7885286776657594 * 2^-52 would round wrongly), a traced divisor and a vector keep
// their division.
// CHECK:         %s = arith.divf %x, %two : f64
// CHECK-NEXT:    %t = arith.divf %x, %refused : f64
// CHECK-NEXT:    %u = arith.divf %x, %x : f64
// CHECK-NEXT:    %v = arith.divf %w, %nines : vector<8xf64>

// In C, the test and a branch (gcc predicts it); the fast path is one product and one fma.
// C-LABEL: by_nine(
// C:         fabs(x)
// C:         if (
// C:           x * 6.1679056923619804e-18;
// C-NEXT:      fma(x, 0.1111111111111111,
// C:         } else {
// C-NEXT:      x / 9.0;
func.func @by_nine(%x: f64, %y: f32, %w: vector<8xf64>) -> (f64, f32, f64, f64, f64, vector<8xf64>) {
  %nine = arith.constant 9.0 : f64
  %nine32 = arith.constant 9.0 : f32
  %two = arith.constant 2.0 : f64
  %refused = arith.constant 1.8924385897581464 : f64
  %nines = vector.broadcast %nine : f64 to vector<8xf64>
  %q = arith.divf %x, %nine : f64
  %r = arith.divf %y, %nine32 : f32
  %s = arith.divf %x, %two : f64
  %t = arith.divf %x, %refused : f64
  %u = arith.divf %x, %x : f64
  %v = arith.divf %w, %nines : vector<8xf64>
  func.return %q, %r, %s, %t, %u, %v : f64, f32, f64, f64, f64, vector<8xf64>
}
