// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s -p convert-graph-to-linalg | filecheck %s --check-prefix=LOW

// graph.dynamic_slice and graph.insert_slice: offsets and sizes mixed static / dynamic (0-d i64).

// CHECK-LABEL: func.func @slices
// CHECK:         %[[S:.*]] = graph.dynamic_slice %a[%i] [%n] static_offsets array<i64: -9223372036854775808, 0> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 1> : tensor<5x6xf64> -> tensor<1x?xf64>
// CHECK:         graph.insert_slice %[[S]] into %a[%i] [%n] static_offsets array<i64: -9223372036854775808, 1> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 2> : tensor<1x?xf64> into tensor<5x6xf64>
// LOW-LABEL:   func.func @slices
// LOW:           %[[I:.*]] = tensor.extract %i[] : tensor<i64>
// LOW-NEXT:      %[[II:.*]] = arith.index_cast %[[I]] : i64 to index
// LOW:           %[[V:.*]] = tensor.extract_slice %a[%[[II]], 0] [1, %{{.*}}] [1, 1] : tensor<5x6xf64> to tensor<1x?xf64>
// LOW:           tensor.insert_slice %[[V]] into %a[%{{.*}}, 1] [1, %{{.*}}] [1, 2] : tensor<1x?xf64> into tensor<5x6xf64>
func.func @slices(%a: tensor<5x6xf64>, %i: tensor<i64>, %n: tensor<i64>) -> tensor<5x6xf64> {
  %s = graph.dynamic_slice %a[%i] [%n] static_offsets array<i64: -9223372036854775808, 0> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 1> : tensor<5x6xf64> -> tensor<1x?xf64>
  %r = graph.insert_slice %s into %a[%i] [%n] static_offsets array<i64: -9223372036854775808, 1> static_sizes array<i64: 1, -9223372036854775808> strides array<i64: 1, 2> : tensor<1x?xf64> into tensor<5x6xf64>
  func.return %r : tensor<5x6xf64>
}

