// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s

// Elementwise ops become one parallel linalg.generic each, with identity maps.
// CHECK-LABEL: func.func @add
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         func.return %[[G]] : tensor<4xf32>
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.add %a, %b : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Integer floor division guards against zero and -1 divisors (NumPy gives 0 and wraps).
// CHECK-LABEL: func.func @floordiv_i32
// CHECK:         arith.cmpi eq
// CHECK:         arith.floordivsi
// CHECK:         arith.select
// CHECK:         linalg.yield
func.func @floordiv_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = graph.floordiv %a, %b : tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

// By a constant power of two, // is an arithmetic shift and % a mask: exact for every
// signed value (floor rounding, result in [0, 2^k)), with no zero or -1 divisor to guard.
// CHECK-LABEL: func.func @pow2_divisor
// CHECK:         arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     arith.floordivsi
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i32
// CHECK-NOT:     arith.remsi
// CHECK:         func.return
func.func @pow2_divisor(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %c8 = graph.constant dense<8> : tensor<4xi32>
  %0 = graph.floordiv %a, %c8 : tensor<4xi32>
  %c2 = graph.constant dense<2> : tensor<i32>
  %b2 = graph.broadcast %c2 : tensor<i32> -> tensor<4xi32>
  %1 = graph.mod %a, %b2 : tensor<4xi32>
  func.return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Other constants (3, -2, and 1 where // is the identity) keep the general lowering.
// CHECK-LABEL: func.func @not_pow2_divisor
// CHECK:         arith.floordivsi
// CHECK:         arith.remsi
// CHECK:         arith.floordivsi
// CHECK-NOT:     arith.shrsi
// CHECK:         func.return
func.func @not_pow2_divisor(%a: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %c3 = graph.constant dense<3> : tensor<4xi64>
  %cm2 = graph.constant dense<-2> : tensor<4xi64>
  %c1 = graph.constant dense<1> : tensor<4xi64>
  %0 = graph.floordiv %a, %c3 : tensor<4xi64>
  %1 = graph.mod %a, %cm2 : tensor<4xi64>
  %2 = graph.floordiv %a, %c1 : tensor<4xi64>
  func.return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// Float modulo uses the exact kmath.fmod and fixes the sign like Python.
// CHECK-LABEL: func.func @mod_f64
// CHECK:         kmath.fmod
// CHECK:         math.copysign
func.func @mod_f64(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  %0 = graph.mod %a, %b : tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

// Comparisons: ordered predicates, except != which is true for NaN.
// CHECK-LABEL: func.func @cmp
// CHECK:         arith.cmpf olt
// CHECK:         arith.cmpf une
// CHECK:         arith.cmpi slt
func.func @cmp(%a: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xi1> {
  %0 = graph.cmp "lt", %a, %a : tensor<4xf32> -> tensor<4xi1>
  %1 = graph.cmp "ne", %a, %a : tensor<4xf32> -> tensor<4xi1>
  %2 = graph.cmp "lt", %i, %i : tensor<4xi64> -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

// Broadcasting is an indexing map: missing leading dims vanish, size-1 dims read index 0.
// CHECK-LABEL: func.func @broadcast
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @broadcast(%a: tensor<1x3xf32>) -> tensor<2x4x3xf32> {
  %0 = graph.broadcast %a : tensor<1x3xf32> -> tensor<2x4x3xf32>
  func.return %0 : tensor<2x4x3xf32>
}

// -----

// Matmul: fill with zero, then one generic with a reduction over k.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.*}} : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// Vector-matrix product: the vector has no m dimension.
// CHECK-LABEL: func.func @vecmat
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
func.func @vecmat(%v: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = graph.matmul %v, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Reductions: identity fill, then reduction iterators; keepdims maps the axis to 0; mean divides.
// CHECK-LABEL: func.func @reduce
// CHECK:         arith.constant 0xff800000 : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.maximumf
// CHECK:         arith.constant 6.000000e+00 : f32
// CHECK:         arith.divf
func.func @reduce(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = graph.reduce "max", %a axes array<i64: 1> keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
  %1 = graph.reduce "mean", %a axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
  func.return %0 : tensor<2x1xf32>
}

// -----

// Transposes are indexing maps; slices are extract_slice views, reversed by a generic for negative strides.
// CHECK-LABEL: func.func @views
// CHECK:         affine_map<(d0, d1) -> (d1, d0)>
// CHECK:         %[[V:.*]] = tensor.extract_slice %{{.*}}[0, 1] [3, 1] [1, 1] : tensor<3x2xf32> to tensor<3x1xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * -1) + 2), d1)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%[[V]]
func.func @views(%a: tensor<2x3xf32>) -> tensor<3x1xf32> {
  %t = graph.transpose %a perm array<i64: 1, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = graph.slice %t start array<i64: 2, 1> stride array<i64: -1, 1> : tensor<3x2xf32> -> tensor<3x1xf32>
  func.return %s : tensor<3x1xf32>
}

// -----

// Reshape collapses to 1-D and expands again.
// CHECK-LABEL: func.func @reshape
// CHECK:         %[[F:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    tensor.expand_shape %[[F]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
func.func @reshape(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = graph.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}

// -----

// A 0-d value to a one-element shape: copied into one element by a generic (xDSL's
// expand_shape does not verify with a 0-d source), then expanded.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK:         %[[ONE:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK:         tensor.expand_shape %[[ONE]] {{\[\[}}0 : i64, 1 : i64]] output_shape [1, 1] : tensor<1xf64> into tensor<1x1xf64>
func.func @reshape_scalar(%a: tensor<f64>) -> tensor<1x1xf64> {
  %0 = graph.reshape %a : tensor<f64> -> tensor<1x1xf64>
  func.return %0 : tensor<1x1xf64>
}

// -----

// Dynamic dims come from tensor.dim of the operand.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[D:.*]] = tensor.dim %a, %{{.*}} : tensor<?x4xf32>
// CHECK-NEXT:    tensor.empty(%[[D]]) : tensor<?x4xf32>
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = graph.exp %a : tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}

// -----

// Elementwise math: a function libm has is one math (or kmath) op in the generic's body,
// so the C backend calls libm (tanf on f32) and CUDA its device function.
// CHECK-LABEL: func.func @libm_unary
// CHECK:         ^{{.*}}(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = math.tan %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK:         math.asin %{{.*}} : f32
// CHECK:         math.acos
// CHECK:         math.atan %{{.*}} : f32
// CHECK:         math.sinh
// CHECK:         math.cosh
// CHECK:         math.asinh
// CHECK:         math.acosh
// CHECK:         math.atanh
// CHECK:         math.log1p
// CHECK:         math.expm1
// CHECK:         math.log2
// CHECK:         math.log10
// CHECK:         math.exp2
// CHECK:         math.cbrt
// CHECK:         math.roundeven
// CHECK:         math.trunc
// CHECK:         math.atan2 %{{.*}}, %{{.*}} : f32
// CHECK:         kmath.hypot %{{.*}}, %{{.*}} : f32
// CHECK:         math.copysign %{{.*}}, %{{.*}} : f32
// CHECK:         kmath.fmod %{{.*}}, %{{.*}} : f32
// CHECK:         arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.minnumf %{{.*}}, %{{.*}} : f32
func.func @libm_unary(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.tan %a : tensor<4xf32>
  %1 = graph.arcsin %0 : tensor<4xf32>
  %2 = graph.arccos %1 : tensor<4xf32>
  %3 = graph.arctan %2 : tensor<4xf32>
  %4 = graph.sinh %3 : tensor<4xf32>
  %5 = graph.cosh %4 : tensor<4xf32>
  %6 = graph.arcsinh %5 : tensor<4xf32>
  %7 = graph.arccosh %6 : tensor<4xf32>
  %8 = graph.arctanh %7 : tensor<4xf32>
  %9 = graph.log1p %8 : tensor<4xf32>
  %10 = graph.expm1 %9 : tensor<4xf32>
  %11 = graph.log2 %10 : tensor<4xf32>
  %12 = graph.log10 %11 : tensor<4xf32>
  %13 = graph.exp2 %12 : tensor<4xf32>
  %14 = graph.cbrt %13 : tensor<4xf32>
  %15 = graph.rint %14 : tensor<4xf32>
  %16 = graph.trunc %15 : tensor<4xf32>
  %17 = graph.arctan2 %16, %b : tensor<4xf32>
  %18 = graph.hypot %17, %b : tensor<4xf32>
  %19 = graph.copysign %18, %b : tensor<4xf32>
  %20 = graph.fmod %19, %b : tensor<4xf32>
  %21 = graph.fmax %20, %b : tensor<4xf32>
  %22 = graph.fmin %21, %b : tensor<4xf32>
  func.return %22 : tensor<4xf32>
}

// -----

// Shifts never shift by the width or more (undefined in C): the count is clamped with an
// unsigned min (a negative count reads as huge), then left_shift selects 0 past the width
// and right_shift's clamped count gives 0 or -1 by itself.
// CHECK-LABEL: func.func @shifts
// CHECK:         ^{{.*}}(%[[X:.*]]: i32, %[[N:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 31 : i32
// CHECK-NEXT:      %[[C:.*]] = arith.minui %[[N]], %[[LAST]] : i32
// CHECK-NEXT:      %[[S:.*]] = arith.shli %[[X]], %[[C]] : i32
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ule, %[[N]], %[[LAST]] : i32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[OK]], %[[S]], %[[Z]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
// CHECK:         ^{{.*}}(%[[Y:.*]]: i64, %[[M:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:      %[[LAST64:.*]] = arith.constant 63 : i64
// CHECK-NEXT:      %[[C64:.*]] = arith.minui %[[M]], %[[LAST64]] : i64
// CHECK-NEXT:      %[[R64:.*]] = arith.shrsi %[[Y]], %[[C64]] : i64
// CHECK-NEXT:      linalg.yield %[[R64]] : i64
func.func @shifts(%a: tensor<4xi32>, %n: tensor<4xi32>, %b: tensor<4xi64>, %m: tensor<4xi64>) -> (tensor<4xi32>, tensor<4xi64>) {
  %0 = graph.left_shift %a, %n : tensor<4xi32>
  %1 = graph.right_shift %b, %m : tensor<4xi64>
  func.return %0, %1 : tensor<4xi32>, tensor<4xi64>
}

// -----

// Integer fmod divides by 1 where the divisor is 0 or -1 and selects 0 there (NumPy's 0 for
// x fmod 0; MIN % -1 would trap); integer reciprocal is NumPy's (int)(1.0 / x) by cases.
// CHECK-LABEL: func.func @int_fmod_reciprocal
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[Y:.*]], %{{.*}} : i64
// CHECK:         %[[M1:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i64
// CHECK-NEXT:    %[[T:.*]] = arith.ori %[[Z]], %[[M1]] : i1
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[SAFE:.*]] = arith.select %[[T]], %[[ONE]], %[[Y]] : i64
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %{{.*}}, %[[SAFE]] : i64
// CHECK-NEXT:    arith.select %[[T]], %{{.*}}, %[[R]] : i64
// CHECK:         arith.constant -9223372036854775808 : i64
// CHECK-NOT:     arith.divsi
// CHECK:         func.return
func.func @int_fmod_reciprocal(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %0 = graph.fmod %a, %b : tensor<4xi64>
  %1 = graph.reciprocal %a : tensor<4xi64>
  func.return %0, %1 : tensor<4xi64>, tensor<4xi64>
}

// -----

// sign: selects on ordered compares, NaN passed through; the tests give i1 tensors: isnan is
// an unordered self-compare, signbit copysign(1, x) < 0 (NaNs' and zeros' sign bits too),
// and on integers the constant answer.
// CHECK-LABEL: func.func @sign_and_tests
// CHECK:         ^{{.*}}(%[[X:.*]]: f64, %{{.*}}: f64):
// CHECK:           %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK-NEXT:      %[[R0:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f64
// CHECK-NEXT:      %[[POS:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f64
// CHECK:           %[[R1:.*]] = arith.select %[[POS]], %{{.*}}, %[[R0]] : f64
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f64
// CHECK:           arith.select %[[NEG]], %{{.*}}, %[[R1]] : f64
// CHECK:         outs(%{{.*}} : tensor<4xi1>)
// CHECK:           %[[U:.*]] = arith.cmpf uno, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      linalg.yield %[[U]] : i1
// CHECK:           %[[ABS:.*]] = math.absf %{{.*}} : f64
// CHECK-NEXT:      %[[INF:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:      arith.cmpf olt, %[[ABS]], %[[INF]] : f64
// CHECK:           %[[CS:.*]] = math.copysign %{{.*}}, %{{.*}} : f64
// CHECK:           arith.cmpf olt, %[[CS]], %{{.*}} : f64
// CHECK:         ins(%i : tensor<4xi32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      linalg.yield %[[TRUE]] : i1
func.func @sign_and_tests(%a: tensor<4xf64>, %i: tensor<4xi32>) -> (tensor<4xf64>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = graph.sign %a : tensor<4xf64>
  %1 = graph.isnan %a : tensor<4xf64> -> tensor<4xi1>
  %2 = graph.isfinite %a : tensor<4xf64> -> tensor<4xi1>
  %3 = graph.signbit %a : tensor<4xf64> -> tensor<4xi1>
  %4 = graph.isfinite %i : tensor<4xi32> -> tensor<4xi1>
  func.return %0, %1, %2, %3, %4 : tensor<4xf64>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// logaddexp: max(x, y) + log1p(exp(-|x - y|)), and x == y (infinities of one sign, whose
// difference is NaN, included) gives x + ln 2; logaddexp2 the same in base 2.
// CHECK-LABEL: func.func @logaddexp
// CHECK:           %[[D:.*]] = arith.subf %[[X:.*]], %[[Y:.*]] : f32
// CHECK-NEXT:      %[[A:.*]] = math.absf %[[D]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT:      %[[L:.*]] = math.log1p %[[E]] : f32
// CHECK:           %[[BIG:.*]] = arith.select %{{.*}}, %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[BIG]], %[[L]] : f32
// CHECK-NEXT:      %[[EQ:.*]] = arith.cmpf oeq, %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK-NEXT:      %[[X2:.*]] = arith.addf %[[X]], %[[LN2]] : f32
// CHECK-NEXT:      arith.select %[[EQ]], %[[X2]], %[[R]] : f32
// CHECK:           math.exp2
// CHECK-NEXT:      math.log1p
// CHECK-NEXT:      arith.constant 1.44269502 : f32
func.func @logaddexp(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.logaddexp %a, %b : tensor<4xf32>
  %1 = graph.logaddexp2 %a, %b : tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
