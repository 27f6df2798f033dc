// RUN: kiln-opt %s --split-input-file -p graph-bound-results | filecheck %s

// x[mask]: at most the values' length (static: a constant); returned padded to it, the length
// an extra result.
// CHECK-LABEL: func.func @compress(%v: tensor<8xf32>, %m: tensor<8xi1>) -> (tensor<8xf32>, tensor<i64>)
// CHECK-SAME:    kiln.result_lengths = array<i64: 0, 0, 1>
// CHECK:         %[[R:.*]] = graph.compress %v, %m
// CHECK-NEXT:    %[[B:.*]] = graph.constant dense<8> : tensor<i64>
// CHECK-NEXT:    %[[P:.*]] = graph.pad_to_bound %[[R]] axes array<i64: 0> sizes[%[[B]]] : tensor<?xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.dim %[[R]], 0 : tensor<?xf32> -> tensor<i64>
// CHECK-NEXT:    func.return %[[P]], %[[N]] : tensor<8xf32>, tensor<i64>
func.func @compress(%v: tensor<8xf32>, %m: tensor<8xi1>) -> tensor<?xf32> {
  %r = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

// Through elementwise ops and broadcasts of scalars to a nonzero's positions: the bound is the
// size of the nonzero's operand, an input's known only at run time; a static result and an
// input-sized one stay, and the length follows all the function's own results.
// CHECK-LABEL: func.func @positions(%x: tensor<?xi1>, %s: tensor<f32>) -> (tensor<?xi64>, tensor<f32>, tensor<?xi1>, tensor<i64>)
// CHECK-SAME:    kiln.result_lengths = array<i64: 0, 0, 3>
// CHECK:         %[[Q:.*]] = graph.floordiv
// CHECK-NEXT:    %[[B:.*]] = graph.dim %x, 0
// CHECK-NEXT:    %[[P:.*]] = graph.pad_to_bound %[[Q]] axes array<i64: 0> sizes[%[[B]]] : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    %[[N:.*]] = graph.dim %[[Q]], 0
// CHECK-NEXT:    func.return %[[P]], %s, %x, %[[N]]
func.func @positions(%x: tensor<?xi1>, %s: tensor<f32>) -> (tensor<?xi64>, tensor<f32>, tensor<?xi1>) {
  %i = graph.nonzero %x : tensor<?xi1> -> tensor<?xi64>
  %c = graph.constant dense<4> : tensor<i64>
  %b = graph.broadcast %c : tensor<i64> -> tensor<?xi64>
  %q = graph.floordiv %i, %b : tensor<?xi64>
  func.return %q, %s, %x : tensor<?xi64>, tensor<f32>, tensor<?xi1>
}

// -----

// A traced slice of rows: the sliced axis padded to the source's, the static axis kept. A slice
// of a compress is bounded by the compress's bound, kept by a reshape to a column.
// CHECK-LABEL: func.func @rows
// CHECK-SAME:    -> (tensor<6x5xf64>, tensor<8x1xf32>, tensor<i64>, tensor<i64>)
// CHECK-SAME:    kiln.result_lengths = array<i64: 0, 0, 2, 1, 0, 3>
// CHECK:         %[[B:.*]] = graph.constant dense<6> : tensor<i64>
// CHECK-NEXT:    graph.pad_to_bound %r axes array<i64: 0> sizes[%[[B]]] : tensor<?x5xf64> -> tensor<6x5xf64>
// CHECK:         %[[C:.*]] = graph.constant dense<8> : tensor<i64>
// CHECK-NEXT:    graph.pad_to_bound %col axes array<i64: 0> sizes[%[[C]]] : tensor<?x1xf32> -> tensor<8x1xf32>
func.func @rows(%a: tensor<6x5xf64>, %i: tensor<i64>, %n: tensor<i64>, %v: tensor<8xf32>, %m: tensor<8xi1>) -> (tensor<?x5xf64>, tensor<?x1xf32>) {
  %r = graph.dynamic_slice %a[%i] [%n] static_offsets array<i64: -9223372036854775808, 0> static_sizes array<i64: -9223372036854775808, 5> strides array<i64: 1, 1> : tensor<6x5xf64> -> tensor<?x5xf64>
  %c = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  %k = graph.dynamic_slice %c[%i] [%n] static_offsets array<i64: -9223372036854775808> static_sizes array<i64: -9223372036854775808> strides array<i64: 1> : tensor<?xf32> -> tensor<?xf32>
  %col = graph.reshape %k : tensor<?xf32> -> tensor<?x1xf32>
  func.return %r, %col : tensor<?x5xf64>, tensor<?x1xf32>
}

// -----

// A[mask] of a matrix of run-time rows: the flattened compress regrouped into rows of 3, so the
// bound is the flattened length over 3 (A's rows).
// CHECK-LABEL: func.func @selected_rows
// CHECK:         %[[R:.*]] = graph.reshape %c : tensor<?xf64> -> tensor<?x3xf64>
// CHECK-NEXT:    %[[D:.*]] = graph.dim %flat, 0
// CHECK-NEXT:    %[[K:.*]] = graph.constant dense<3> : tensor<i64>
// CHECK-NEXT:    %[[B:.*]] = graph.floordiv %[[D]], %[[K]] : tensor<i64>
// CHECK-NEXT:    graph.pad_to_bound %[[R]] axes array<i64: 0> sizes[%[[B]]] : tensor<?x3xf64> -> tensor<?x3xf64>
func.func @selected_rows(%a: tensor<?x3xf64>, %m: tensor<?xi1>) -> tensor<?x3xf64> {
  %flat = graph.reshape %a : tensor<?x3xf64> -> tensor<?xf64>
  %m2 = graph.reshape %m : tensor<?xi1> -> tensor<?x1xi1>
  %mb = graph.broadcast %m2 : tensor<?x1xi1> -> tensor<?x3xi1>
  %mf = graph.reshape %mb : tensor<?x3xi1> -> tensor<?xi1>
  %c = graph.compress %flat, %mf : (tensor<?xf64>, tensor<?xi1>) -> tensor<?xf64>
  %r = graph.reshape %c : tensor<?xf64> -> tensor<?x3xf64>
  func.return %r : tensor<?x3xf64>
}

// -----

// A staged if whose branches have one bound; one whose branches do not is left alone.
// CHECK-LABEL: func.func @branches
// CHECK-SAME:    kiln.result_lengths = array<i64: 0, 0, 2>
// CHECK:         graph.pad_to_bound %{{.*}} axes array<i64: 0> sizes[%{{.*}}] : tensor<?xf32> -> tensor<8xf32>
// CHECK-NOT:     graph.pad_to_bound
func.func @branches(%c: tensor<i1>, %v: tensor<8xf32>, %m: tensor<8xi1>, %w: tensor<8xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  %s = graph.compress %w, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  %same = graph.cond %c -> (tensor<?xf32>) {
    %d = graph.add %r, %r : tensor<?xf32>
    graph.yield %d : tensor<?xf32>
  } else {
    graph.yield %r : tensor<?xf32>
  }
  %other = graph.cond %c -> (tensor<?xf32>) {
    graph.yield %r : tensor<?xf32>
  } else {
    graph.yield %s : tensor<?xf32>
  }
  func.return %same, %other : tensor<?xf32>, tensor<?xf32>
}

// -----

// Joined along the data-sized axis: the one data-sized operand's bound plus the others' static
// sizes (a constant for a static bound, dim + 1 for a run-time one); two data-sized operands, or
// one with an input's run-time size, are left alone.
// CHECK-LABEL: func.func @joined
// CHECK-SAME:    -> (tensor<11xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>, tensor<i64>, tensor<i64>)
// CHECK-SAME:    kiln.result_lengths = array<i64: 0, 0, 4, 1, 0, 5>
// CHECK:         %[[B:.*]] = graph.constant dense<11> : tensor<i64>
// CHECK-NEXT:    graph.pad_to_bound %r axes array<i64: 0> sizes[%[[B]]] : tensor<?xf32> -> tensor<11xf32>
// CHECK:         %[[D:.*]] = graph.dim %x, 0
// CHECK-NEXT:    %[[K:.*]] = graph.constant dense<1> : tensor<i64>
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[D]], %[[K]] : tensor<i64>
// CHECK-NEXT:    graph.pad_to_bound %q axes array<i64: 0> sizes[%[[S]]] : tensor<?xi64> -> tensor<?xi64>
// CHECK-NOT:     graph.pad_to_bound
func.func @joined(%v: tensor<8xf32>, %m: tensor<8xi1>, %w: tensor<3xf32>, %x: tensor<?xi1>, %one: tensor<1xi64>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) {
  %c = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  %r = graph.concat %w, %c axis 0 : (tensor<3xf32>, tensor<?xf32>) -> tensor<?xf32>
  %i = graph.nonzero %x : tensor<?xi1> -> tensor<?xi64>
  %q = graph.concat %i, %one axis 0 : (tensor<?xi64>, tensor<1xi64>) -> tensor<?xi64>
  %two = graph.concat %c, %c axis 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %own = graph.concat %c, %y axis 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r, %q, %two, %own : tensor<?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Sizes no input bounds (an iota of a traced count), sizes of the inputs, private functions:
// left alone (the frontend refuses the first when returned).
// CHECK-LABEL: func.func @unbounded(%n: tensor<i64>, %x: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xf32>) {
// CHECK-NEXT:    graph.iota
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @helper(%v: tensor<8xf32>, %m: tensor<8xi1>) -> tensor<?xf32> {
func.func @unbounded(%n: tensor<i64>, %x: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xf32>) {
  %r = graph.iota %n : tensor<i64> -> tensor<?xi64>
  func.return %r, %x : tensor<?xi64>, tensor<?xf32>
}
func.func private @helper(%v: tensor<8xf32>, %m: tensor<8xi1>) -> tensor<?xf32> {
  %r = graph.compress %v, %m : (tensor<8xf32>, tensor<8xi1>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
