// RUN: kiln-opt %s --verify-diagnostics
// A slice op must stay inside its array.

func.func @out_of_bounds(%a: tensor<5x6xf64>, %v: tensor<1x4xf64>) -> tensor<5x6xf64> {
  // expected-error @+1 {{graph.insert_slice: axis 1 covers indices 3..6 of a dimension of size 6}}
  %r = graph.insert_slice %v into %a[] [] static_offsets array<i64: 0, 3> static_sizes array<i64: 1, 4> strides array<i64: 1, 1> : tensor<1x4xf64> into tensor<5x6xf64>
  func.return %r : tensor<5x6xf64>
}
