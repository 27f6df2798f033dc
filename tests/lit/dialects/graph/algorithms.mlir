// RUN: %roundtrip
// graph.scan / argreduce / sort / argsort / bincount / searchsorted print and parse back.

// CHECK-LABEL: func.func @algorithms
// CHECK:         %{{.*}} = graph.scan "add", %x axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.scan "max", %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.argreduce "min", %x axis 1 : tensor<3x4xf32> -> tensor<3xi64>
// CHECK-NEXT:    %{{.*}} = graph.sort %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.argsort %x axis 1 : tensor<3x4xf32> -> tensor<3x4xi64>
// CHECK-NEXT:    %{{.*}} = graph.bincount %i : (tensor<?xi64>) -> tensor<5xi64>
// CHECK-NEXT:    %{{.*}} = graph.bincount %i, %w : (tensor<?xi64>, tensor<?xf64>) -> tensor<7xf64>
// CHECK-NEXT:    %{{.*}} = graph.searchsorted "right", %s, %x : (tensor<6xf32>, tensor<3x4xf32>) -> tensor<3x4xi64>
func.func @algorithms(%x: tensor<3x4xf32>, %i: tensor<?xi64>, %w: tensor<?xf64>, %s: tensor<6xf32>) {
  %0 = graph.scan "add", %x axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = graph.scan "max", %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  %a = graph.argreduce "min", %x axis 1 : tensor<3x4xf32> -> tensor<3xi64>
  %2 = graph.sort %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  %3 = graph.argsort %x axis 1 : tensor<3x4xf32> -> tensor<3x4xi64>
  %4 = graph.bincount %i : (tensor<?xi64>) -> tensor<5xi64>
  %5 = graph.bincount %i, %w : (tensor<?xi64>, tensor<?xf64>) -> tensor<7xf64>
  %6 = graph.searchsorted "right", %s, %x : (tensor<6xf32>, tensor<3x4xf32>) -> tensor<3x4xi64>
  func.return
}
