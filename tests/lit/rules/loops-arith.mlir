// RUN: kiln-opt %s --rules kiln:loops-arith | filecheck %s

// x * 2.0 -> x + x, exact for every x: on vectors (a broadcast constant) and scalars, the
// constant on either side.
// CHECK-LABEL: func.func @doubles
// CHECK-NEXT:    %0 = arith.addf %a, %a : vector<8xf32>
// CHECK-NEXT:    %1 = arith.addf %a, %a : vector<8xf32>
// CHECK-NEXT:    %2 = arith.addf %s, %s : f64
// CHECK-NEXT:    %3 = arith.addf %s, %s : f64
// CHECK-NEXT:    func.return %0, %1, %2, %3
func.func @doubles(%a: vector<8xf32>, %s: f64) -> (vector<8xf32>, vector<8xf32>, f64, f64) {
  %c2 = arith.constant 2.0 : f32
  %b = vector.broadcast %c2 : f32 to vector<8xf32>
  %d2 = arith.constant 2.0 : f64
  %0 = arith.mulf %a, %b : vector<8xf32>
  %1 = arith.mulf %b, %a : vector<8xf32>
  %2 = arith.mulf %s, %d2 : f64
  %3 = arith.mulf %d2, %s : f64
  func.return %0, %1, %2, %3 : vector<8xf32>, vector<8xf32>, f64, f64
}

// Left alone: other constants (-2.0, 2.5), an integer multiply, a non-constant operand.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: arith.mulf
// CHECK:         arith.muli
func.func @kept(%a: vector<8xf32>, %s: f64, %t: f64, %i: i64) -> (vector<8xf32>, f64, f64, i64) {
  %cm2 = arith.constant -2.0 : f32
  %b = vector.broadcast %cm2 : f32 to vector<8xf32>
  %c25 = arith.constant 2.5 : f64
  %i2 = arith.constant 2 : i64
  %0 = arith.mulf %a, %b : vector<8xf32>
  %1 = arith.mulf %s, %c25 : f64
  %2 = arith.mulf %s, %t : f64
  %3 = arith.muli %i, %i2 : i64
  func.return %0, %1, %2, %3 : vector<8xf32>, f64, f64, i64
}
