// RUN: kiln-opt %s --split-input-file -p convert-graph-to-linalg | filecheck %s

// Complex arithmetic is written out on the parts in NumPy's formulas: * with its fused
// multiply-add, / by Smith's algorithm (both branches computed, one selected).
// CHECK-LABEL: func.func @arith
// CHECK:         ^{{.*}}(%[[X:.*]]: complex<f64>, %[[Y:.*]]: complex<f64>, %{{.*}}: complex<f64>):
// CHECK-NEXT:      %[[XR:.*]] = complex.re %[[X]] : complex<f64>
// CHECK-NEXT:      %[[XI:.*]] = complex.im %[[X]] : complex<f64>
// CHECK-NEXT:      %[[YR:.*]] = complex.re %[[Y]] : complex<f64>
// CHECK-NEXT:      %[[YI:.*]] = complex.im %[[Y]] : complex<f64>
// CHECK-NEXT:      %[[II:.*]] = arith.mulf %[[XI]], %[[YI]] : f64
// CHECK-NEXT:      %[[NII:.*]] = arith.negf %[[II]] : f64
// CHECK-NEXT:      %[[RE:.*]] = math.fma %[[XR]], %[[YR]], %[[NII]] : f64
// CHECK-NEXT:      %[[IR:.*]] = arith.mulf %[[XI]], %[[YR]] : f64
// CHECK-NEXT:      %[[IM:.*]] = math.fma %[[XR]], %[[YI]], %[[IR]] : f64
// CHECK-NEXT:      %[[Z:.*]] = complex.create %[[RE]], %[[IM]] : complex<f64>
// CHECK-NEXT:      linalg.yield %[[Z]] : complex<f64>
// CHECK:         math.absf
// CHECK:         arith.cmpf oge
// CHECK:         arith.select
// CHECK:         complex.create
// CHECK:         complex.exp %{{.*}} : complex<f64>
// CHECK:         arith.cmpf oeq
// CHECK-NEXT:    arith.cmpf oeq
// CHECK-NEXT:    arith.andi
func.func @arith(%a: tensor<4xcomplex<f64>>, %b: tensor<4xcomplex<f64>>) -> (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xi1>) {
  %0 = graph.mul %a, %b : tensor<4xcomplex<f64>>
  %1 = graph.div %0, %b : tensor<4xcomplex<f64>>
  %2 = graph.exp %1 : tensor<4xcomplex<f64>>
  %3 = graph.cmp "eq", %2, %a : tensor<4xcomplex<f64>> -> tensor<4xi1>
  func.return %0, %1, %2, %3 : tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>, tensor<4xi1>
}

// -----

// graph.complex builds, graph.real/imag take apart; |z| is NumPy's l*sqrt(fma(q, q, 1));
// casts from real add a zero imaginary part; complex fills (sum identity) are generics
// yielding a complex.constant (linalg.fill takes no complex scalar); prod multiplies
// without fma (NumPy's reduction loop).
// CHECK-LABEL: func.func @parts
// CHECK:         complex.create %{{.*}}, %{{.*}} : complex<f32>
// CHECK:         complex.re %{{.*}} : complex<f32>
// CHECK:         complex.im %{{.*}} : complex<f32>
// CHECK:         math.fma
// CHECK-NEXT:    math.sqrt
// CHECK:         ^{{.*}}(%[[V:.*]]: f32, %{{.*}}: complex<f32>):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      complex.create %[[V]], %[[ZERO]] : complex<f32>
// CHECK:         complex.constant [0.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK:         iterator_types = ["reduction"]
// CHECK:         complex.constant [1.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK:         iterator_types = ["reduction"]
// CHECK-NOT:     math.fma
// CHECK:         func.return
func.func @parts(%re: tensor<4xf32>, %im: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>) {
  %z = graph.complex %re, %im : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %0 = graph.real %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %1 = graph.imag %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %2 = graph.cabs %z : tensor<4xcomplex<f32>> -> tensor<4xf32>
  %3 = graph.cast %re : tensor<4xf32> -> tensor<4xcomplex<f32>>
  %4 = graph.reduce "sum", %z axes array<i64: 0> : tensor<4xcomplex<f32>> -> tensor<complex<f32>>
  %5 = graph.reduce "prod", %z axes array<i64: 0> : tensor<4xcomplex<f32>> -> tensor<complex<f32>>
  func.return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>
}
