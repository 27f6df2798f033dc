// RUN: kiln-opt %s --rules kiln:graph-shapes | filecheck %s

// CHECK-LABEL: func.func @reshapes
// CHECK:         %[[R:.*]] = graph.reshape %x : tensor<2x6xf32> -> tensor<12xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.reshape %d : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %x, %[[R]], %[[D]]
func.func @reshapes(%x: tensor<2x6xf32>, %d: tensor<?x?xf32>) -> (tensor<2x6xf32>, tensor<12xf32>, tensor<?x?xf32>) {
  %0 = graph.reshape %x : tensor<2x6xf32> -> tensor<2x6xf32>
  %1 = graph.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %2 = graph.reshape %1 : tensor<3x4xf32> -> tensor<12xf32>
  %3 = graph.reshape %d : tensor<?x?xf32> -> tensor<?x?xf32>
  func.return %0, %2, %3 : tensor<2x6xf32>, tensor<12xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @broadcasts
// CHECK:         %[[B:.*]] = graph.broadcast %x : tensor<3xi32> -> tensor<4x2x3xi32>
// CHECK-NEXT:    func.return %x, %[[B]]
func.func @broadcasts(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<4x2x3xi32>) {
  %0 = graph.broadcast %x : tensor<3xi32> -> tensor<3xi32>
  %1 = graph.broadcast %x : tensor<3xi32> -> tensor<2x3xi32>
  %2 = graph.broadcast %1 : tensor<2x3xi32> -> tensor<4x2x3xi32>
  func.return %0, %2 : tensor<3xi32>, tensor<4x2x3xi32>
}

// Casts that give every value back go; narrowing ones and lossy ones stay.
// CHECK-LABEL: func.func @casts
// CHECK:         %[[N:.*]] = graph.cast %x : tensor<4xf64> -> tensor<4xf32>
// CHECK-NEXT:    %[[NB:.*]] = graph.cast %[[N]] : tensor<4xf32> -> tensor<4xf64>
// CHECK-NEXT:    %[[L:.*]] = graph.cast %j : tensor<4xi64> -> tensor<4xf64>
// CHECK-NEXT:    %[[LB:.*]] = graph.cast %[[L]] : tensor<4xf64> -> tensor<4xi64>
// CHECK-NEXT:    func.return %f, %f, %i, %u, %b, %[[NB]], %[[LB]]
func.func @casts(%f: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>, %b: tensor<4xi1>, %x: tensor<4xf64>, %j: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi1>, tensor<4xf64>, tensor<4xi64>) {
  %0 = graph.cast %f : tensor<4xf32> -> tensor<4xf32>
  %1 = graph.cast %f : tensor<4xf32> -> tensor<4xf64>
  %2 = graph.cast %1 : tensor<4xf64> -> tensor<4xf32>
  %3 = graph.cast %i : tensor<4xi32> -> tensor<4xf64>
  %4 = graph.cast %3 : tensor<4xf64> -> tensor<4xi32>
  %5 = graph.cast %u : tensor<4xui8> -> tensor<4xi8>
  %6 = graph.cast %5 : tensor<4xi8> -> tensor<4xui8>
  %7 = graph.cast %b : tensor<4xi1> -> tensor<4xf32>
  %8 = graph.cast %7 : tensor<4xf32> -> tensor<4xi1>
  %9 = graph.cast %x : tensor<4xf64> -> tensor<4xf32>
  %10 = graph.cast %9 : tensor<4xf32> -> tensor<4xf64>
  %11 = graph.cast %j : tensor<4xi64> -> tensor<4xf64>
  %12 = graph.cast %11 : tensor<4xf64> -> tensor<4xi64>
  func.return %0, %2, %4, %6, %8, %10, %12 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xui8>, tensor<4xi1>, tensor<4xf64>, tensor<4xi64>
}

// CHECK-LABEL: func.func @concats
// CHECK:         %[[C:.*]] = graph.concat %x, %x axis 0
// CHECK-NEXT:    func.return %x, %[[C]]
func.func @concats(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %0 = graph.concat %x axis 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = graph.concat %x, %x axis 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}
