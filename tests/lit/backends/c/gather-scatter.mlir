// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s
// RUN: kiln-opt %s -p graph-to-c -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// kernel.gather / kernel.scatter in C: one loop over the index positions in row-major order,
// each index wrapped once and clamped to its axis, then a loop over the trailing axes; a
// scatter that accumulates combines in the updates' type and casts back. A run-time axis
// length guards the nest (an empty axis has nothing to pick).

// CHECK-LABEL: {{^}}void take(
// CHECK:         if (1) {
// CHECK-NEXT:      for (int64_t [[B:i0[0-9_]*]] = 0; [[B]] < 4; [[B]]++) {
// CHECK-NEXT:        int64_t [[AT:at[0-9_]*]] = i{{\[}}[[B]]];
// CHECK-NEXT:        if ([[AT]] < 0) [[AT]] += 10;
// CHECK-NEXT:        if ([[AT]] < 0) [[AT]] = 0; else if ([[AT]] >= 10) [[AT]] = 10 - 1;
// CHECK-NEXT:        for (int64_t [[R:i0_[0-9]+]] = 0; [[R]] < 3; [[R]]++) {
// CHECK-NEXT:          out{{\[}}[[B]]*3 + [[R]]] = x{{\[}}[[AT]]*3 + [[R]]];
func.func @take(%x: tensor<10x3xf64>, %i: tensor<4xi64>) -> tensor<4x3xf64> {
  %0 = graph.gather %x[%i] : (tensor<10x3xf64>, tensor<4xi64>) -> tensor<4x3xf64>
  func.return %0 : tensor<4x3xf64>
}

// CHECK-LABEL: {{^}}void pairs(
// CHECK:         if (x_d0 > 0) {
// CHECK:           out{{\[}}{{.*}}] = x{{\[}}at*5 + at_1];
func.func @pairs(%x: tensor<?x5xf32>, %i: tensor<2x2xi64>, %j: tensor<2x2xi64>) -> tensor<2x2xf32> {
  %0 = graph.gather %x[%i, %j] : (tensor<?x5xf32>, tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: {{^}}void add_at(
// CHECK:         out[at] = (float)(((double)out[at]) + u[i0]);
func.func @add_at(%x: tensor<8xf32>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<8xf32> {
  %0 = graph.scatter "add" %u into %x[%i] : (tensor<3xf64>, tensor<8xf32>, tensor<3xi64>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// CHECK-LABEL: {{^}}void max_at(
// CHECK:         out[at] = (double)kiln_maximum(((double)out[at]), u[i0]);
func.func @max_at(%x: tensor<8xf64>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<8xf64> {
  %0 = graph.scatter "max" %u into %x[%i] : (tensor<3xf64>, tensor<8xf64>, tensor<3xi64>) -> tensor<8xf64>
  func.return %0 : tensor<8xf64>
}

// CHECK-LABEL: {{^}}void set_rows(
// CHECK:         out{{\[}}at*2 + [[R:i0_[0-9]+]]] = u{{\[}}i0*2 + [[R]]];
func.func @set_rows(%x: tensor<6x2xi32>, %i: tensor<3xi64>, %u: tensor<3x2xi32>) -> tensor<6x2xi32> {
  %0 = graph.scatter "set" %u into %x[%i] : (tensor<3x2xi32>, tensor<6x2xi32>, tensor<3xi64>) -> tensor<6x2xi32>
  func.return %0 : tensor<6x2xi32>
}

// kernel.iota: out[i] = i over the run-time length.
// CHECK-LABEL: {{^}}void iota_sum(
// CHECK:         for (int64_t [[I:i[0-9_]*]] = 0; [[I]] < {{.*}}; [[I]]++) {
// CHECK-NEXT:      {{.*}}{{\[}}[[I]]] = [[I]];
func.func @iota_sum(%n: tensor<i64>) -> tensor<i64> {
  %0 = graph.iota %n : tensor<i64> -> tensor<?xi64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xi64> -> tensor<i64>
  func.return %1 : tensor<i64>
}

// kernel.nonzero: one branch-free loop in order over the (here strided) input: each position is
// stored at the next output slot, which advances past the nonzero elements; the loop stops once
// the output (allocated at the count) is full.
// CHECK-LABEL: {{^}}void nonzero_strided(
// CHECK:         int64_t *[[P:buf[0-9_]*]] = (int64_t *)kiln_alloc([[N:[a-z0-9_]*]]*
// CHECK-NEXT:    {
// CHECK-NEXT:      int64_t [[K:k[0-9_]*]] = 0;
// CHECK-NEXT:      for (int64_t [[I:i[0-9_]*]] = 0; [[I]] < 5 && [[K]] < [[N]]; [[I]]++) {
// CHECK-NEXT:        [[P]]{{\[}}[[K]]] = [[I]];
// CHECK-NEXT:        [[K]] += [[V:v[0-9_]*]]{{\[}}[[I]]*2] != 0;
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @nonzero_strided(%x: tensor<10xf64>) -> tensor<i64> {
  %s = graph.slice %x start array<i64: 1> stride array<i64: 2> : tensor<10xf64> -> tensor<5xf64>
  %0 = graph.nonzero %s : tensor<5xf64> -> tensor<?xi64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xi64> -> tensor<i64>
  func.return %1 : tensor<i64>
}

// A complex element is nonzero when either part is: C's `!= 0` on a _Complex value says so.
// CHECK-LABEL: void nonzero_complex(float _Complex *restrict z, int64_t *restrict out) {
// CHECK:         += z{{\[}}{{.*}}] != 0;
func.func @nonzero_complex(%z: tensor<4xcomplex<f32>>) -> tensor<i64> {
  %0 = graph.nonzero %z : tensor<4xcomplex<f32>> -> tensor<?xi64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xi64> -> tensor<i64>
  func.return %1 : tensor<i64>
}
