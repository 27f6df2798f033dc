// RUN: kiln-opt %s -p graph-partition | filecheck %s

// Elementwise ops and broadcasting run blockwise; the broadcast row is chunked as what it meets.
// CHECK-LABEL: func.func @blockwise
// CHECK:         graph.exp %x {kiln.partition = "blockwise [x, *]"}
// CHECK:         graph.broadcast %y {kiln.partition = "blockwise [x, *]"}
// CHECK:         graph.mul %{{.*}}, %{{.*}} {kiln.partition = "blockwise [x, *]"}
func.func @blockwise(%x: tensor<8x4xf64> {kiln.chunks = ["x", "*"]}, %y: tensor<4xf64>) -> tensor<8x4xf64> {
  %0 = graph.exp %x : tensor<8x4xf64>
  %1 = graph.broadcast %y : tensor<4xf64> -> tensor<8x4xf64>
  %2 = graph.mul %0, %1 : tensor<8x4xf64>
  func.return %2 : tensor<8x4xf64>
}

// Two arguments split along different names are one grid axis once combined.
// CHECK-LABEL: func.func @unified
// CHECK:         graph.add %a, %b {kiln.partition = "blockwise [a, *]"}
func.func @unified(%a: tensor<8x4xf32> {kiln.chunks = ["a", "*"]}, %b: tensor<8x4xf32> {kiln.chunks = ["b", "*"]}) -> tensor<8x4xf32> {
  %0 = graph.add %a, %b : tensor<8x4xf32>
  func.return %0 : tensor<8x4xf32>
}

// A transpose meets the axes it permutes: y is chunked as x, transposed.
// CHECK-LABEL: func.func @transposed
// CHECK:         graph.transpose %y perm array<i64: 1, 0> {kiln.partition = "blockwise [x, w]"}
func.func @transposed(%x: tensor<8x4xf64> {kiln.chunks = ["x", "w"]}, %y: tensor<4x8xf64> {kiln.chunks = ["y", "z"]}) -> tensor<8x4xf64> {
  %0 = graph.transpose %y perm array<i64: 1, 0> : tensor<4x8xf64> -> tensor<8x4xf64>
  %1 = graph.add %x, %0 : tensor<8x4xf64>
  func.return %1 : tensor<8x4xf64>
}

// A reduction over the split axis is a tree (partial per chunk, combine, final); over the other
// axis it stays in the chunk. var's second pass reads the combined mean, broadcast to every chunk.
// CHECK-LABEL: func.func @reductions
// CHECK:         graph.reduce "sum", %x axes array<i64: 0> keepdims {kiln.partition = "tree sum [x, *] -> [*, *]"}
// CHECK:         graph.broadcast %{{.*}} {kiln.partition = "blockwise [x, *]"}
// CHECK:         graph.sub %x, %{{.*}} {kiln.partition = "blockwise [x, *]"}
// CHECK:         graph.reduce "max", %{{.*}} axes array<i64: 0> {kiln.partition = "tree max [x, *] -> [*]"}
// CHECK:         graph.reduce "mean", %x axes array<i64: 1> {kiln.partition = "blockwise [x]"}
func.func @reductions(%x: tensor<8x4xf64> {kiln.chunks = ["x", "*"]}) -> (tensor<4xf64>, tensor<8xf64>) {
  %0 = graph.reduce "sum", %x axes array<i64: 0> keepdims : tensor<8x4xf64> -> tensor<1x4xf64>
  %1 = graph.broadcast %0 : tensor<1x4xf64> -> tensor<8x4xf64>
  %2 = graph.sub %x, %1 : tensor<8x4xf64>
  %3 = graph.reduce "max", %2 axes array<i64: 0> : tensor<8x4xf64> -> tensor<4xf64>
  %4 = graph.reduce "mean", %x axes array<i64: 1> : tensor<8x4xf64> -> tensor<8xf64>
  func.return %3, %4 : tensor<4xf64>, tensor<8xf64>
}

// Slices at offsets are shifts: a[2:] - 2 a[1:-1] + a[:-2] needs 2 elements of the next chunk
// (the halo is read from the offsets, not guessed).
// CHECK-LABEL: func.func @stencil
// CHECK:         graph.sub %{{.*}}, %{{.*}} {kiln.partition = "blockwise [a] halo a(0, 2)"}
// CHECK:         graph.add %{{.*}}, %{{.*}} {kiln.partition = "blockwise [a] halo a(0, 2)"}
func.func @stencil(%a: tensor<8xf64> {kiln.chunks = ["a"]}) -> tensor<6xf64> {
  %0 = graph.slice %a start array<i64: 2> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
  %1 = graph.slice %a start array<i64: 1> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
  %2 = graph.sub %0, %1 : tensor<6xf64>
  %3 = graph.slice %a start array<i64: 0> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
  %4 = graph.add %2, %3 : tensor<6xf64>
  func.return %4 : tensor<6xf64>
}

// out[1:-1] = a[2:] + a[:-2] on a zeroed array: one element of halo on each side.
// CHECK-LABEL: func.func @written_stencil
// CHECK:         graph.broadcast %{{.*}} {kiln.partition = "blockwise [a]"}
// CHECK:         graph.insert_slice {{.*}} {kiln.partition = "blockwise [a] halo a(1, 1)"}
func.func @written_stencil(%a: tensor<8xf64> {kiln.chunks = ["a"]}) -> tensor<8xf64> {
  %0 = graph.constant dense<0.000000e+00> : tensor<f64>
  %1 = graph.broadcast %0 : tensor<f64> -> tensor<8xf64>
  %2 = graph.slice %a start array<i64: 2> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
  %3 = graph.slice %a start array<i64: 0> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
  %4 = graph.add %2, %3 : tensor<6xf64>
  %5 = graph.insert_slice %4 into %1[] [] static_offsets array<i64: 1> static_sizes array<i64: 6> strides array<i64: 1> : tensor<6xf64> into tensor<8xf64>
  func.return %5 : tensor<8xf64>
}

// np.roll traces as the concat of a tail and a head slice: a shift by one that wraps around, so
// the halo is taken across the array's ends (periodic), one element on the side it comes from.
// CHECK-LABEL: func.func @rolled
// CHECK:         graph.concat %{{.*}}, %{{.*}} axis 0 {kiln.partition = "blockwise [a] halo a(1, 0, periodic)"}
func.func @rolled(%a: tensor<8xf64> {kiln.chunks = ["a"]}) -> tensor<8xf64> {
  %0 = graph.slice %a start array<i64: 7> stride array<i64: 1> : tensor<8xf64> -> tensor<1xf64>
  %1 = graph.slice %a start array<i64: 0> stride array<i64: 1> : tensor<8xf64> -> tensor<7xf64>
  %2 = graph.concat %0, %1 axis 0 : (tensor<1xf64>, tensor<7xf64>) -> tensor<8xf64>
  func.return %2 : tensor<8xf64>
}

// A product contracting a chunked axis is cut: blockwise products of the operands' blocks
// (rows x contracted x columns), summed by a tree; rows stay chunked as the left operand's.
// CHECK-LABEL: func.func @product
// CHECK:         graph.matmul %x, %w {kiln.partition = "contract [x, k, *] -> [x, *]"}
func.func @product(%x: tensor<8x6xf64> {kiln.chunks = ["x", "k"]}, %w: tensor<6x4xf64> {kiln.chunks = ["k", "*"]}) -> tensor<8x4xf64> {
  %0 = graph.matmul %x, %w : (tensor<8x6xf64>, tensor<6x4xf64>) -> tensor<8x4xf64>
  func.return %0 : tensor<8x4xf64>
}

// argmax over the chunked axis is a tree whose partials are each chunk's extreme and its global
// position; argmin over the whole axis stays in the chunk.
// CHECK-LABEL: func.func @positions
// CHECK:         graph.argreduce "max", %x axis 0 {kiln.partition = "tree argmax [x, *] -> [*]"}
// CHECK:         graph.argreduce "min", %x axis 1 {kiln.partition = "blockwise [x]"}
func.func @positions(%x: tensor<8x4xf64> {kiln.chunks = ["x", "*"]}) -> (tensor<4xi64>, tensor<8xi64>) {
  %0 = graph.argreduce "max", %x axis 0 : tensor<8x4xf64> -> tensor<4xi64>
  %1 = graph.argreduce "min", %x axis 1 : tensor<8x4xf64> -> tensor<8xi64>
  func.return %0, %1 : tensor<4xi64>, tensor<8xi64>
}

// A cumulative sum along the chunked axis is a scan over chunks; along the whole axis it stays in
// the chunk. The scan's result comes in exact: the stencil after it needs only its own halo.
// CHECK-LABEL: func.func @scans
// CHECK:         graph.scan "add", %{{.*}} axis 0 {kiln.partition = "scan add [x, *]"}
// CHECK:         graph.scan "mul", %x axis 1 {kiln.partition = "blockwise [x, *]"}
// CHECK:         graph.sub %{{.*}}, %{{.*}} {kiln.partition = "blockwise [x, *] halo x(0, 1)"}
func.func @scans(%x: tensor<8x4xf64> {kiln.chunks = ["x", "*"]}) -> (tensor<7x4xf64>, tensor<8x4xf64>) {
  %0 = graph.slice %x start array<i64: 1, 0> stride array<i64: 1, 1> : tensor<8x4xf64> -> tensor<7x4xf64>
  %1 = graph.slice %x start array<i64: 0, 0> stride array<i64: 1, 1> : tensor<8x4xf64> -> tensor<7x4xf64>
  %2 = graph.add %0, %1 : tensor<7x4xf64>
  %3 = graph.scan "add", %x axis 0 : tensor<8x4xf64> -> tensor<8x4xf64>
  %4 = graph.scan "mul", %x axis 1 : tensor<8x4xf64> -> tensor<8x4xf64>
  %5 = graph.slice %3 start array<i64: 1, 0> stride array<i64: 1, 1> : tensor<8x4xf64> -> tensor<7x4xf64>
  %6 = graph.slice %3 start array<i64: 0, 0> stride array<i64: 1, 1> : tensor<8x4xf64> -> tensor<7x4xf64>
  %7 = graph.sub %5, %6 : tensor<7x4xf64>
  func.return %7, %4 : tensor<7x4xf64>, tensor<8x4xf64>
}

// A sort along the chunked axis cannot be split: its operand is rechunked, whole along that axis.
// CHECK-LABEL: func.func @sorted
// CHECK:         graph.sort %x axis 0 {kiln.partition = "rechunk [x] whole along x"}
// CHECK:         graph.sub %{{.*}}, %x {kiln.partition = "blockwise [x]"}
func.func @sorted(%x: tensor<8xf64> {kiln.chunks = ["x"]}) -> tensor<8xf64> {
  %0 = graph.sort %x axis 0 : tensor<8xf64> -> tensor<8xf64>
  %1 = graph.sub %0, %x : tensor<8xf64>
  func.return %1 : tensor<8xf64>
}

// A staged `for t in range(3)` whose body crosses no chunks stays one loop, run per chunk.
// CHECK-LABEL: func.func @loop_per_chunk
// CHECK:         graph.mul %{{.*}}, %{{.*}} {kiln.partition = "blockwise [x]"}
// CHECK:         } {kiln.partition = "loop per chunk [x]"}
func.func @loop_per_chunk(%a: tensor<8xf64> {kiln.chunks = ["x"]}) -> tensor<8xf64> {
  %0 = graph.constant dense<0> : tensor<i64>
  %1 = graph.constant dense<true> : tensor<i1>
  %2, %3, %4 = graph.while(%a, %1, %0) : (tensor<8xf64>, tensor<i1>, tensor<i64>) -> (tensor<8xf64>, tensor<i1>, tensor<i64>) cond {
  ^bb0(%5: tensor<8xf64>, %6: tensor<i1>, %7: tensor<i64>):
    %8 = graph.constant dense<3> : tensor<i64>
    %9 = graph.cmp "lt", %7, %8 : tensor<i64> -> tensor<i1>
    graph.condition %9, %5, %6, %7 : tensor<8xf64>, tensor<i1>, tensor<i64>
  } do {
  ^bb0(%10: tensor<8xf64>, %11: tensor<i1>, %12: tensor<i64>):
    %13 = graph.mul %10, %10 : tensor<8xf64>
    %14 = graph.constant dense<1> : tensor<i64>
    %15 = graph.add %12, %14 : tensor<i64>
    %16 = graph.constant dense<false> : tensor<i1>
    graph.yield %13, %16, %15 : tensor<8xf64>, tensor<i1>, tensor<i64>
  }
  func.return %2 : tensor<8xf64>
}

// A time-stepping stencil: each of the 3 steps needs one neighbour on each side, so the loop
// steps (one task per step and chunk, the halo exchanged between steps); the body's halo is
// one step's, not three.
// CHECK-LABEL: func.func @time_steps
// CHECK:         graph.insert_slice {{.*}} {kiln.partition = "blockwise [x] halo x(1, 1)"}
// CHECK:         } {kiln.partition = "steps 3 [x]"}
func.func @time_steps(%a: tensor<8xf64> {kiln.chunks = ["x"]}) -> tensor<8xf64> {
  %0 = graph.constant dense<0> : tensor<i64>
  %1 = graph.constant dense<true> : tensor<i1>
  %2, %3, %4 = graph.while(%a, %1, %0) : (tensor<8xf64>, tensor<i1>, tensor<i64>) -> (tensor<8xf64>, tensor<i1>, tensor<i64>) cond {
  ^bb0(%5: tensor<8xf64>, %6: tensor<i1>, %7: tensor<i64>):
    %8 = graph.constant dense<3> : tensor<i64>
    %9 = graph.cmp "lt", %7, %8 : tensor<i64> -> tensor<i1>
    graph.condition %9, %5, %6, %7 : tensor<8xf64>, tensor<i1>, tensor<i64>
  } do {
  ^bb0(%10: tensor<8xf64>, %11: tensor<i1>, %12: tensor<i64>):
    %13 = graph.slice %10 start array<i64: 2> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
    %14 = graph.slice %10 start array<i64: 0> stride array<i64: 1> : tensor<8xf64> -> tensor<6xf64>
    %15 = graph.add %13, %14 : tensor<6xf64>
    %16 = graph.insert_slice %15 into %10[] [] static_offsets array<i64: 1> static_sizes array<i64: 6> strides array<i64: 1> : tensor<6xf64> into tensor<8xf64>
    %17 = graph.constant dense<1> : tensor<i64>
    %18 = graph.add %12, %17 : tensor<i64>
    %19 = graph.constant dense<false> : tensor<i1>
    graph.yield %16, %19, %18 : tensor<8xf64>, tensor<i1>, tensor<i64>
  }
  func.return %2 : tensor<8xf64>
}

// Indexing with an array along the chunked axis cannot be split: the operand is rechunked whole
// along it; the result is chunked as the indices are (here whole).
// CHECK-LABEL: func.func @gathered
// CHECK:         graph.gather %x[%i] {kiln.partition = "rechunk [*, w] whole along x"}
func.func @gathered(%x: tensor<8x4xf64> {kiln.chunks = ["x", "w"]}, %i: tensor<3xi64>) -> tensor<3x4xf64> {
  %0 = graph.gather %x[%i] : (tensor<8x4xf64>, tensor<3xi64>) -> tensor<3x4xf64>
  func.return %0 : tensor<3x4xf64>
}

// Dask computes a flattening reshape, a strided slice along a chunked axis and the transpose of
// a @ a.T on their exact operand; each of their result's dimensions is a grid axis of its own, so
// the flat argmax is a tree over the reshape's chunks and the product's columns are not its rows.
// CHECK-LABEL: func.func @dask_ops
// CHECK:         graph.reshape %a {kiln.partition = "dask [reshape0.0]"}
// CHECK:         graph.argreduce "max", %{{.*}} axis 0 {kiln.partition = "tree argmax [reshape0.0] -> []"}
// CHECK:         graph.slice %a start array<i64: 0, 1> stride array<i64: 2, 1> {kiln.partition = "dask [slice1.0, slice1.1]"}
// CHECK:         graph.mul %{{.*}}, %{{.*}} {kiln.partition = "blockwise [slice1.0, slice1.1]"}
// CHECK:         graph.transpose %a perm array<i64: 1, 0> {kiln.partition = "dask [y, transpose2.1]"}
// CHECK:         graph.matmul %a, %{{.*}} {kiln.partition = "contract [x, y, transpose2.1] -> [x, transpose2.1]"}
func.func @dask_ops(%a: tensor<8x6xf64> {kiln.chunks = ["x", "y"]}) -> (tensor<i64>, tensor<4x5xf64>, tensor<8x8xf64>) {
  %0 = graph.reshape %a : tensor<8x6xf64> -> tensor<48xf64>
  %1 = graph.argreduce "max", %0 axis 0 : tensor<48xf64> -> tensor<i64>
  %2 = graph.slice %a start array<i64: 0, 1> stride array<i64: 2, 1> : tensor<8x6xf64> -> tensor<4x5xf64>
  %3 = graph.mul %2, %2 : tensor<4x5xf64>
  %4 = graph.transpose %a perm array<i64: 1, 0> : tensor<8x6xf64> -> tensor<6x8xf64>
  %5 = graph.matmul %a, %4 : (tensor<8x6xf64>, tensor<6x8xf64>) -> tensor<8x8xf64>
  func.return %1, %3, %5 : tensor<i64>, tensor<4x5xf64>, tensor<8x8xf64>
}
