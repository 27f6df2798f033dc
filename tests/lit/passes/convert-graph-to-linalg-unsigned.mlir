// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s
// RUN: kiln-opt %s --split-input-file -p graph-to-loops | filecheck %s --check-prefix=ABI

// Unsigned graph types (uiN) choose the unsigned ops and come out signless; the function's
// unsigned arguments and results are marked kiln.unsigned, and bufferization carries the
// result's mark to its output parameter.
// CHECK-LABEL: func.func @ops(%a: tensor<4xi8> {kiln.unsigned}, %b: tensor<4xi8> {kiln.unsigned}) -> (tensor<4xi8> {kiln.unsigned}, tensor<4xi1>)
// CHECK:         arith.cmpi eq
// CHECK:         arith.divui
// CHECK:         arith.select
// CHECK:         arith.remui
// CHECK:         arith.maxui
// CHECK:         arith.minui
// CHECK:         arith.cmpi ult
// CHECK-NOT:     ui8
// ABI-LABEL: func.func @ops(%a: memref<4xi8> {kiln.unsigned}, %b: memref<4xi8> {kiln.unsigned}, %{{.*}}: memref<4xi8> {kiln.unsigned}, %{{.*}}: memref<4xi1>)
func.func @ops(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xi1>) {
  %q = graph.floordiv %a, %b : tensor<4xui8>
  %r = graph.mod %q, %b : tensor<4xui8>
  %m = graph.maximum %r, %a : tensor<4xui8>
  %n = graph.minimum %m, %b : tensor<4xui8>
  %c = graph.cmp "lt", %n, %a : tensor<4xui8> -> tensor<4xi1>
  func.return %n, %c : tensor<4xui8>, tensor<4xi1>
}

// -----

// Casts: unsigned sources zero-extend and convert as unsigned; floats reach uint8 through a
// signed i32 conversion (so -1.0 wraps to 255 as in NumPy), uint32 through i64, uint64 by fptoui.
// CHECK-LABEL: func.func @casts
// CHECK:         arith.extui %{{.*}} : i8 to i32
// CHECK:         arith.uitofp %{{.*}} : i8 to f64
// CHECK:         arith.fptosi %{{.*}} : f64 to i32
// CHECK-NEXT:    arith.trunci %{{.*}} : i32 to i8
// CHECK:         arith.fptosi %{{.*}} : f64 to i64
// CHECK-NEXT:    arith.trunci %{{.*}} : i64 to i32
// CHECK:         arith.fptoui %{{.*}} : f64 to i64
// CHECK:         arith.extsi %{{.*}} : i8 to i16
func.func @casts(%a: tensor<4xui8>, %f: tensor<4xf64>, %s: tensor<4xi8>) -> (tensor<4xui32>, tensor<4xf64>, tensor<4xui8>, tensor<4xui32>, tensor<4xui64>, tensor<4xi16>) {
  %0 = graph.cast %a : tensor<4xui8> -> tensor<4xui32>
  %1 = graph.cast %a : tensor<4xui8> -> tensor<4xf64>
  %2 = graph.cast %f : tensor<4xf64> -> tensor<4xui8>
  %3 = graph.cast %f : tensor<4xf64> -> tensor<4xui32>
  %4 = graph.cast %f : tensor<4xf64> -> tensor<4xui64>
  %5 = graph.cast %s : tensor<4xi8> -> tensor<4xi16>
  func.return %0, %1, %2, %3, %4, %5 : tensor<4xui32>, tensor<4xf64>, tensor<4xui8>, tensor<4xui32>, tensor<4xui64>, tensor<4xi16>
}

// -----

// Reductions: the unsigned identities (max from 0, min from all ones); constants keep their
// bits (200 : ui8 is -56 : i8); unsigned floor division by 2**k is a logical shift.
// CHECK-LABEL: func.func @reduce
// CHECK:         arith.constant 0 : i16
// CHECK:         arith.maxui
// CHECK:         arith.constant 65535 : i16
// CHECK:         arith.minui
// CHECK:         arith.constant dense<[-56, 1]> : tensor<2xi8>
// CHECK:         arith.shrui
func.func @reduce(%a: tensor<4xui16>, %k: tensor<2xui8>) -> (tensor<ui16>, tensor<ui16>, tensor<2xui8>) {
  %0 = graph.reduce "max", %a axes array<i64: 0> : tensor<4xui16> -> tensor<ui16>
  %1 = graph.reduce "min", %a axes array<i64: 0> : tensor<4xui16> -> tensor<ui16>
  %c = graph.constant dense<[200, 1]> : tensor<2xui8>
  %two = graph.constant dense<2> : tensor<2xui8>
  %2 = graph.floordiv %c, %two : tensor<2xui8>
  func.return %0, %1, %2 : tensor<ui16>, tensor<ui16>, tensor<2xui8>
}
