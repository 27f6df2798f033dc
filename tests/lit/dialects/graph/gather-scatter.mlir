// RUN: %roundtrip
// graph.gather / graph.scatter (integer-array indexing) print and parse back.

// CHECK-LABEL: func.func @ops
// CHECK:         %{{.*}} = graph.gather %x[%i] : (tensor<10x3xf64>, tensor<4xi64>) -> tensor<4x3xf64>
// CHECK-NEXT:    %{{.*}} = graph.gather %x[%i, %j] : (tensor<10x3xf64>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xf64>
// CHECK-NEXT:    %{{.*}} = graph.scatter "add" %u into %x[%i] : (tensor<4x3xf32>, tensor<10x3xf64>, tensor<4xi64>) -> tensor<10x3xf64>
// CHECK-NEXT:    %{{.*}} = graph.scatter "set" %v into %x[%i, %j] : (tensor<4xf64>, tensor<10x3xf64>, tensor<4xi64>, tensor<4xi64>) -> tensor<10x3xf64>
func.func @ops(%x: tensor<10x3xf64>, %i: tensor<4xi64>, %j: tensor<4xi64>, %u: tensor<4x3xf32>, %v: tensor<4xf64>) {
  %0 = graph.gather %x[%i] : (tensor<10x3xf64>, tensor<4xi64>) -> tensor<4x3xf64>
  %1 = graph.gather %x[%i, %j] : (tensor<10x3xf64>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xf64>
  %2 = graph.scatter "add" %u into %x[%i] : (tensor<4x3xf32>, tensor<10x3xf64>, tensor<4xi64>) -> tensor<10x3xf64>
  %3 = graph.scatter "set" %v into %x[%i, %j] : (tensor<4xf64>, tensor<10x3xf64>, tensor<4xi64>, tensor<4xi64>) -> tensor<10x3xf64>
  func.return
}

// CHECK-LABEL: func.func @iota
// CHECK:         %{{.*}} = graph.iota %n : tensor<i64> -> tensor<?xi64>
func.func @iota(%n: tensor<i64>) {
  %0 = graph.iota %n : tensor<i64> -> tensor<?xi64>
  func.return
}

// CHECK-LABEL: func.func @nonzero
// CHECK:         %{{.*}} = graph.nonzero %x : tensor<8xf32> -> tensor<?xi64>
// CHECK-NEXT:    %{{.*}} = graph.nonzero %m : tensor<?xi1> -> tensor<?xi64>
func.func @nonzero(%x: tensor<8xf32>, %m: tensor<?xi1>) {
  %0 = graph.nonzero %x : tensor<8xf32> -> tensor<?xi64>
  %1 = graph.nonzero %m : tensor<?xi1> -> tensor<?xi64>
  func.return
}

// CHECK-LABEL: func.func @compress
// CHECK:         %{{.*}} = graph.compress %x, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
// CHECK-NEXT:    %{{.*}} = graph.compress %z, %c : (tensor<?xcomplex<f64>>, tensor<8xi32>) -> tensor<?xcomplex<f64>>
func.func @compress(%x: tensor<8xf32>, %m: tensor<8xi1>, %z: tensor<?xcomplex<f64>>, %c: tensor<8xi32>) {
  %0 = graph.compress %x, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  %1 = graph.compress %z, %c : (tensor<?xcomplex<f64>>, tensor<8xi32>) -> tensor<?xcomplex<f64>>
  func.return
}
