// RUN: kiln-opt %s -p convert-graph-to-linalg | filecheck %s
// Sequential algorithms become kalgo ops writing into a tensor.empty of the result's type
// (its dynamic sizes from the operand, or from the values for searchsorted).

// CHECK-LABEL: func.func @scan_sort
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT:    %[[S:.*]] = kalgo.scan {axis = 1 : i64, kind = "add"} ins(%x : tensor<3x4xf32>) outs(%[[E]] : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT:    %[[T:.*]] = kalgo.sort {axis = 0 : i64} ins(%[[S]] : tensor<3x4xf32>) outs(%[[E2]] : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[E3:.*]] = tensor.empty() : tensor<3x4xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.argsort {axis = 0 : i64} ins(%[[T]] : tensor<3x4xf32>) outs(%[[E3]] : tensor<3x4xi64>) -> tensor<3x4xi64>
func.func @scan_sort(%x: tensor<3x4xf32>) -> tensor<3x4xi64> {
  %0 = graph.scan "add", %x axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = graph.sort %0 axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  %2 = graph.argsort %1 axis 0 : tensor<3x4xf32> -> tensor<3x4xi64>
  func.return %2 : tensor<3x4xi64>
}

// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %x, %[[C0]] : tensor<?x2xf64>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x2xf64>
// CHECK-NEXT:    %{{.*}} = kalgo.scan {axis = 0 : i64, kind = "max"} ins(%x : tensor<?x2xf64>) outs(%[[E]] : tensor<?x2xf64>) -> tensor<?x2xf64>
func.func @dynamic(%x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  %0 = graph.scan "max", %x axis 0 : tensor<?x2xf64> -> tensor<?x2xf64>
  func.return %0 : tensor<?x2xf64>
}

// CHECK-LABEL: func.func @argreduce
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %x, %[[C1]] : tensor<4x?x2xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty(%[[N]]) : tensor<4x?xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.argreduce {axis = 2 : i64, kind = "max"} ins(%x : tensor<4x?x2xf32>) outs(%[[E]] : tensor<4x?xi64>) -> tensor<4x?xi64>
func.func @argreduce(%x: tensor<4x?x2xf32>) -> tensor<4x?xi64> {
  %0 = graph.argreduce "max", %x axis 2 : tensor<4x?x2xf32> -> tensor<4x?xi64>
  func.return %0 : tensor<4x?xi64>
}

// CHECK-LABEL: func.func @counting
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<5xf64>
// CHECK-NEXT:    %{{.*}} = kalgo.bincount {} ins(%i, %w : tensor<?xi64>, tensor<?xf64>) outs(%[[E]] : tensor<5xf64>) -> tensor<5xf64>
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[M:.*]] = tensor.dim %v, %[[C1]] : tensor<2x?xf32>
// CHECK-NEXT:    %[[E2:.*]] = tensor.empty(%[[M]]) : tensor<2x?xi64>
// CHECK-NEXT:    %{{.*}} = kalgo.searchsorted {side = "right"} ins(%s, %v : tensor<7xf32>, tensor<2x?xf32>) outs(%[[E2]] : tensor<2x?xi64>) -> tensor<2x?xi64>
func.func @counting(%i: tensor<?xi64>, %w: tensor<?xf64>, %s: tensor<7xf32>, %v: tensor<2x?xf32>) -> (tensor<5xf64>, tensor<2x?xi64>) {
  %0 = graph.bincount %i, %w : (tensor<?xi64>, tensor<?xf64>) -> tensor<5xf64>
  %1 = graph.searchsorted "right", %s, %v : (tensor<7xf32>, tensor<2x?xf32>) -> tensor<2x?xi64>
  func.return %0, %1 : tensor<5xf64>, tensor<2x?xi64>
}

// graph.histogram: one kalgo.histogram writing a tensor.empty per result (counts, then sums).
// CHECK-LABEL: func.func @histogram
// CHECK-NEXT:    %[[C:.*]] = tensor.empty() : tensor<4xi64>
// CHECK-NEXT:    %[[S:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = kalgo.histogram {} ins(%x, %lo, %hi, %span, %e, %w : tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<5xf64>, tensor<?xf32>) outs(%[[C]], %[[S]] : tensor<4xi64>, tensor<4xf32>) -> tensor<4xi64>, tensor<4xf32>
func.func @histogram(%x: tensor<?xf64>, %lo: tensor<f64>, %hi: tensor<f64>, %span: tensor<f64>, %e: tensor<5xf64>, %w: tensor<?xf32>) -> (tensor<4xi64>, tensor<4xf32>) {
  %c, %s = graph.histogram %x, %lo, %hi, %span, %e, %w : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<5xf64>, tensor<?xf32>) -> (tensor<4xi64>, tensor<4xf32>)
  func.return %c, %s : tensor<4xi64>, tensor<4xf32>
}
