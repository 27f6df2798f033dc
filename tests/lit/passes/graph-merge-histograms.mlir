// RUN: kiln-opt %s -p graph-merge-histograms | filecheck %s

// The counts of %x and its sums of %w bin alike: one op gives both (NPBench's azimint_hist).
// CHECK-LABEL: func.func @counts_and_sums
// CHECK-NEXT:    %[[C:.*]], %[[S:.*]] = graph.histogram %x, %lo, %hi, %span, %e, %w : {{.*}} -> (tensor<10xi64>, tensor<10xf64>)
// CHECK-NEXT:    %[[D:.*]] = graph.add %[[C]], %[[C]] : tensor<10xi64>
// CHECK-NEXT:    func.return %[[D]], %[[S]], %[[C]]
func.func @counts_and_sums(%x: tensor<?xf64>, %lo: tensor<f64>, %hi: tensor<f64>, %span: tensor<f64>, %e: tensor<11xf64>, %w: tensor<?xf64>) -> (tensor<10xi64>, tensor<10xf64>, tensor<10xi64>) {
  %c = graph.histogram %x, %lo, %hi, %span, %e : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<11xf64>) -> tensor<10xi64>
  %d = graph.add %c, %c : tensor<10xi64>
  %c2, %s = graph.histogram %x, %lo, %hi, %span, %e, %w : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<11xf64>, tensor<?xf64>) -> (tensor<10xi64>, tensor<10xf64>)
  func.return %d, %s, %c2 : tensor<10xi64>, tensor<10xf64>, tensor<10xi64>
}

// Other bounds, or weights computed after the first op: both stay.
// CHECK-LABEL: func.func @kept_apart
// CHECK:         graph.histogram %x, %lo, %hi, %span, %e :
// CHECK:         graph.histogram %x, %hi, %hi, %span, %e :
// CHECK:         graph.histogram %x, %lo, %hi, %span, %e, %w2 :
func.func @kept_apart(%x: tensor<?xf64>, %lo: tensor<f64>, %hi: tensor<f64>, %span: tensor<f64>, %e: tensor<11xf64>, %w: tensor<?xf64>) -> (tensor<10xi64>, tensor<10xi64>, tensor<10xf64>) {
  %a = graph.histogram %x, %lo, %hi, %span, %e : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<11xf64>) -> tensor<10xi64>
  %b = graph.histogram %x, %hi, %hi, %span, %e : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<11xf64>) -> tensor<10xi64>
  %w2 = graph.add %w, %w : tensor<?xf64>
  %c, %s = graph.histogram %x, %lo, %hi, %span, %e, %w2 : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<11xf64>, tensor<?xf64>) -> (tensor<10xi64>, tensor<10xf64>)
  func.return %a, %b, %s : tensor<10xi64>, tensor<10xi64>, tensor<10xf64>
}
