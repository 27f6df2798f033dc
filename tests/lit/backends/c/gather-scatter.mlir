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
// CHECK-NEXT:      int64_t [[K:k[0-9_]*]] = 0, [[I:i[0-9_]*]] = 0;
// CHECK-NEXT:      for (; [[I]] < 5 && [[K]] < [[N]]; [[I]]++) {
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

// A contiguous byte mask (a bool array) goes eight bytes at a time while eight more slots are
// left: a zero word is skipped, a word of ones stores eight consecutive positions, a mixed word
// goes byte by byte; the loop above takes the remaining bytes.
// CHECK-LABEL: void nonzero_bytes(
// CHECK:         int64_t [[K:k[0-9_]*]] = 0, [[I:i[0-9_]*]] = 0;
// CHECK-NEXT:    for (; [[I]] + 8 <= 20 && [[K]] + 8 <= [[N:[a-z0-9_]*]]; [[I]] += 8) {
// CHECK-NEXT:      uint64_t [[W:word[0-9_]*]];
// CHECK-NEXT:      memcpy(&[[W]], (const unsigned char *)m + [[I]], 8);
// CHECK-NEXT:      if ([[W]] == 0) continue;
// CHECK-NEXT:      if ([[W]] == 0x0101010101010101ull) {
// CHECK-NEXT:        for (int64_t [[J:j[0-9_]*]] = 0; [[J]] < 8; [[J]]++) [[P:buf[0-9_]*]]{{\[}}[[K]] + [[J]]] = [[I]] + [[J]];
// CHECK-NEXT:        [[K]] += 8;
// CHECK-NEXT:        continue;
// CHECK-NEXT:      }
// CHECK-NEXT:      for (int64_t [[J2:j[0-9_]*]] = 0; [[J2]] < 8; [[J2]]++) {
// CHECK-NEXT:        [[P]]{{\[}}[[K]]] = [[I]] + [[J2]];
// CHECK-NEXT:        [[K]] += ((const unsigned char *)m)[[[I]] + [[J2]]] != 0;
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    for (; [[I]] < 20 && [[K]] < [[N]]; [[I]]++) {
// CHECK-NEXT:      [[P]]{{\[}}[[K]]] = [[I]];
// CHECK-NEXT:      [[K]] += m{{\[}}[[I]]] != 0;
func.func @nonzero_bytes(%m: tensor<20xi1>) -> tensor<i64> {
  %0 = graph.nonzero %m : tensor<20xi1> -> tensor<?xi64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xi64> -> tensor<i64>
  func.return %1 : tensor<i64>
}

// kernel.compress: nonzero's loop storing the values (here strided, by a strided mask, so no
// word path): every value is stored at the next slot, which advances past the selected ones.
// CHECK-LABEL: void compress_strided(
// CHECK:         [[P:buf[0-9_]*]] = (double *)kiln_alloc([[N:[a-z0-9_]*]]*
// CHECK-NEXT:    {
// CHECK-NEXT:      int64_t [[K:k[0-9_]*]] = 0, [[I:i[0-9_]*]] = 0;
// CHECK-NEXT:      for (; [[I]] < 5 && [[K]] < [[N]]; [[I]]++) {
// CHECK-NEXT:        [[P]]{{\[}}[[K]]] = [[V:v[0-9_]*]]{{\[}}[[I]]*2];
// CHECK-NEXT:        [[K]] += m{{\[}}[[I]]*3] != 0;
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     word
func.func @compress_strided(%x: tensor<10xf64>, %m: tensor<15xi1>) -> tensor<f64> {
  %s = graph.slice %x start array<i64: 1> stride array<i64: 2> : tensor<10xf64> -> tensor<5xf64>
  %t = graph.slice %m start array<i64: 0> stride array<i64: 3> : tensor<15xi1> -> tensor<5xi1>
  %0 = graph.compress %s, %t : (tensor<5xf64>, tensor<5xi1>) -> tensor<?xf64>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xf64> -> tensor<f64>
  func.return %1 : tensor<f64>
}

// A contiguous byte mask with contiguous values: a word of ones copies eight values at once; a
// mixed word stores each value at the next slot. An f16 value is copied as it is.
// CHECK-LABEL: void compress_bytes(
// CHECK:         for (; [[I:i[0-9_]*]] + 8 <= [[L:[a-z0-9_]*]] && [[K:k[0-9_]*]] + 8 <= [[N:[a-z0-9_]*]]; [[I]] += 8) {
// CHECK:           if ([[W:word[0-9_]*]] == 0x0101010101010101ull) {
// CHECK-NEXT:        memcpy(&[[P:buf[0-9_]*]]{{\[}}[[K]]], &x{{\[}}[[I]]], 8 * sizeof(_Float16));
// CHECK-NEXT:        [[K]] += 8;
// CHECK:           for (int64_t [[J:j[0-9_]*]] = 0; [[J]] < 8; [[J]]++) {
// CHECK-NEXT:        [[P]]{{\[}}[[K]]] = x{{\[}}[[I]] + [[J]]];
// CHECK-NEXT:        [[K]] += ((const unsigned char *)m)[[[I]] + [[J]]] != 0;
// CHECK:         for (; [[I]] < [[L]] && [[K]] < [[N]]; [[I]]++) {
// CHECK-NEXT:      [[P]]{{\[}}[[K]]] = x{{\[}}[[I]]];
// CHECK-NEXT:      [[K]] += m{{\[}}[[I]]] != 0;
func.func @compress_bytes(%x: tensor<?xf16>, %m: tensor<?xi1>) -> tensor<f16> {
  %0 = graph.compress %x, %m : (tensor<?xf16>, tensor<?xi1>) -> tensor<?xf16>
  %1 = graph.reduce "max", %0 axes array<i64: 0> : tensor<?xf16> -> tensor<f16>
  func.return %1 : tensor<f16>
}

// Complex values by a float mask (nonzero as `!= 0`, NaN included): copied whole, no word path.
// CHECK-LABEL: void compress_complex(
// CHECK:         [[P:buf[0-9_]*]] = (double _Complex *)kiln_alloc(
// CHECK-NOT:     word
// CHECK:           [[P]]{{\[}}[[K:k[0-9_]*]]] = z{{\[}}[[I:i[0-9_]*]]];
// CHECK-NEXT:      [[K]] += m{{\[}}[[I]]] != 0;
func.func @compress_complex(%z: tensor<4xcomplex<f64>>, %m: tensor<4xf32>) -> tensor<complex<f64>> {
  %0 = graph.compress %z, %m : (tensor<4xcomplex<f64>>, tensor<4xf32>) -> tensor<?xcomplex<f64>>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xcomplex<f64>> -> tensor<complex<f64>>
  func.return %1 : tensor<complex<f64>>
}

// By a byte mask, eight complex values are one memcpy of their size.
// CHECK-LABEL: void compress_complex_bytes(
// CHECK:         memcpy(&{{buf[0-9_]*}}{{\[}}{{k[0-9_]*}}], &z{{\[}}{{i[0-9_]*}}], 8 * sizeof(float _Complex));
func.func @compress_complex_bytes(%z: tensor<16xcomplex<f32>>, %m: tensor<16xi1>) -> tensor<complex<f32>> {
  %0 = graph.compress %z, %m : (tensor<16xcomplex<f32>>, tensor<16xi1>) -> tensor<?xcomplex<f32>>
  %1 = graph.reduce "sum", %0 axes array<i64: 0> : tensor<?xcomplex<f32>> -> tensor<complex<f32>>
  func.return %1 : tensor<complex<f32>>
}
