// RUN: kiln-opt %s --rules kiln:graph-idempotents | filecheck %s

// relu(relu(x)), |(|x|)| and rounding a rounded value are the inner op.
// CHECK-LABEL: func.func @again
// CHECK:         %[[R:.*]] = graph.relu %x : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.abs %x : tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.floor %x : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.ceil %x : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]], %[[A]], %[[F]], %[[C]], %[[C]]
func.func @again(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = graph.relu %x : tensor<4xf32>
  %1 = graph.relu %0 : tensor<4xf32>
  %2 = graph.abs %x : tensor<4xf32>
  %3 = graph.abs %2 : tensor<4xf32>
  %4 = graph.floor %x : tensor<4xf32>
  %5 = graph.rint %4 : tensor<4xf32>
  %6 = graph.ceil %x : tensor<4xf32>
  %7 = graph.trunc %6 : tensor<4xf32>
  %8 = graph.floor %7 : tensor<4xf32>
  func.return %1, %3, %5, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// |-x| is |x| for signed integers and floats, not for unsigned ones (-x wraps).
// CHECK-LABEL: func.func @abs_neg
// CHECK:         %[[AX:.*]] = graph.abs %x : tensor<4xf64>
// CHECK:         %[[AI:.*]] = graph.abs %i : tensor<4xi8>
// CHECK:         %[[NU:.*]] = graph.neg %u : tensor<4xui16>
// CHECK:         %[[AU:.*]] = graph.abs %[[NU]] : tensor<4xui16>
// CHECK:         func.return %[[AX]], %[[AI]], %[[AU]]
func.func @abs_neg(%x: tensor<4xf64>, %i: tensor<4xi8>, %u: tensor<4xui16>) -> (tensor<4xf64>, tensor<4xi8>, tensor<4xui16>) {
  %0 = graph.neg %x : tensor<4xf64>
  %1 = graph.abs %0 : tensor<4xf64>
  %2 = graph.neg %i : tensor<4xi8>
  %3 = graph.abs %2 : tensor<4xi8>
  %4 = graph.neg %u : tensor<4xui16>
  %5 = graph.abs %4 : tensor<4xui16>
  func.return %1, %3, %5 : tensor<4xf64>, tensor<4xi8>, tensor<4xui16>
}

// An op of a value with itself; with two different values it stays.
// CHECK-LABEL: func.func @same
// CHECK:         %[[M:.*]] = graph.maximum %x, %y : tensor<4xf32>
// CHECK-NEXT:    func.return %x, %x, %x, %x, %i, %i, %[[M]]
func.func @same(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) {
  %0 = graph.maximum %x, %x : tensor<4xf32>
  %1 = graph.minimum %x, %x : tensor<4xf32>
  %2 = graph.fmax %x, %x : tensor<4xf32>
  %3 = graph.fmin %x, %x : tensor<4xf32>
  %4 = graph.and %i, %i : tensor<4xi32>
  %5 = graph.or %i, %i : tensor<4xi32>
  %6 = graph.maximum %x, %y : tensor<4xf32>
  func.return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>
}
