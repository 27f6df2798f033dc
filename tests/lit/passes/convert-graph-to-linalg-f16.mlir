// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s

// f16 ops compute in f32 and round once per op, as NumPy's float16 loops do.
// CHECK-LABEL: func.func @arith
// CHECK:         ^{{.*}}(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[XW]], %[[YW]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16
// CHECK:         math.exp %{{.*}} : f32
// CHECK-NEXT:    arith.truncf %{{.*}} : f32 to f16
// CHECK:         arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    linalg.yield %{{.*}} : i1
func.func @arith(%a: tensor<4xf16>, %b: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xi1>) {
  %0 = graph.add %a, %b : tensor<4xf16>
  %1 = graph.exp %0 : tensor<4xf16>
  %2 = graph.cmp "lt", %1, %b : tensor<4xf16> -> tensor<4xi1>
  func.return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xi1>
}

// -----

// maximum/minimum stay f16 (exact): NumPy's float16 loops keep the first operand on ties
// (-0.0 vs +0.0) and propagate NaN. Casts from f64 round once, directly.
// CHECK-LABEL: func.func @max_and_casts
// CHECK:         %[[GE:.*]] = arith.cmpf oge, %[[X:.*]], %[[Y:.*]] : f16
// CHECK-NEXT:    %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f16
// CHECK-NEXT:    %[[KEEP:.*]] = arith.ori %[[GE]], %[[NAN]] : i1
// CHECK-NEXT:    arith.select %[[KEEP]], %[[X]], %[[Y]] : f16
// CHECK:         arith.truncf %{{.*}} : f64 to f16
// CHECK:         arith.fptosi %{{.*}} : f16 to i32
func.func @max_and_casts(%a: tensor<4xf16>, %b: tensor<4xf16>, %d: tensor<4xf64>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xi32>) {
  %0 = graph.maximum %a, %b : tensor<4xf16>
  %1 = graph.cast %d : tensor<4xf64> -> tensor<4xf16>
  %2 = graph.cast %a : tensor<4xf16> -> tensor<4xi32>
  func.return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xi32>
}
