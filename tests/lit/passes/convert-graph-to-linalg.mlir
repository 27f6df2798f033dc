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

// Dynamic dims come from tensor.dim of the operand.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[D:.*]] = tensor.dim %a, %{{.*}} : tensor<?x4xf32>
// CHECK-NEXT:    tensor.empty(%[[D]]) : tensor<?x4xf32>
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = graph.exp %a : tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}
