// RUN: kiln-opt %s -p graph-to-c -t c | filecheck %s
// RUN: kiln-opt %s -p graph-to-c -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o
// The kernel dialect's algorithms in C: a scan reads the previous result along its axis, sorting
// calls the merge sort pasted once per element type (NaN last), bincount zeroes and adds,
// searchsorted calls the binary search. Long lines are radix-sorted on keys whose unsigned
// order is NumPy's (NaN largest, -0.0 equal to +0.0).

// CHECK-DAG: #define KS_T float
// CHECK-DAG: #define KS_LESS(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
// CHECK-DAG: #define KS_NAME(x) kiln_sort_f32_##x
// CHECK-DAG: #define KS_T int64_t
// CHECK-DAG: #define KS_TO_KEY(v) ((uint64_t)(v) ^ 0x8000000000000000u)
// CHECK-DAG: static inline uint32_t kiln_sort_key_float(float v) {

// CHECK-LABEL: {{^}}void scan(
// CHECK:         for (int64_t [[I:i[0-9_]+]] = 0; [[I]] < 3; [[I]]++) {
// CHECK-NEXT:      for (int64_t [[J:i[0-9_]+]] = 0; [[J]] < 4; [[J]]++) {
// CHECK-NEXT:        out{{\[}}[[I]]*4 + [[J]]] = [[J]] == 0 ? x{{\[}}[[I]]*4 + [[J]]] : (out{{\[}}[[I]]*4 + [[J]] - 1] + x{{\[}}[[I]]*4 + [[J]]]);
func.func @scan(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.scan "add", %x axis 1 : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// CHECK-LABEL: {{^}}void running_max(
// CHECK:         out{{\[}}[[I:i[0-9_]+]]*2 + [[J:i[0-9_]+]]] = [[I]] == 0 ? x{{\[}}[[I]]*2 + [[J]]] : kiln_maximum(out[([[I]] - 1)*2 + [[J]]], x{{\[}}[[I]]*2 + [[J]]]);
func.func @running_max(%x: tensor<5x2xf64>) -> tensor<5x2xf64> {
  %0 = graph.scan "max", %x axis 0 : tensor<5x2xf64> -> tensor<5x2xf64>
  func.return %0 : tensor<5x2xf64>
}

// CHECK-LABEL: {{^}}void argmax(
// CHECK:         float *[[BEST:best[0-9_]*]] = (float *)malloc(3 * sizeof(float) + 1);
// CHECK:         const float [[V:v[0-9_]*]] = x{{\[}}[[I:i[0-9_]+]]*4 + [[J:i[0-9_]+]]];
// CHECK-NEXT:    if ([[J]] == 0 || [[V]] > [[BEST]]{{\[}}[[I]]] || ([[V]] != [[V]] && [[BEST]]{{\[}}[[I]]] == [[BEST]]{{\[}}[[I]]])) { [[BEST]]{{\[}}[[I]]] = [[V]]; out{{\[}}[[I]]] = [[J]]; }
// CHECK:         free([[BEST]]);
func.func @argmax(%x: tensor<3x4xf32>) -> tensor<3xi64> {
  %0 = graph.argreduce "max", %x axis 1 : tensor<3x4xf32> -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}

// CHECK-LABEL: {{^}}void sort(
// CHECK:         void *[[W:sort_work[0-9_]*]] = malloc(kiln_sort_f32_work_size(3));
// CHECK-NEXT:    if (![[W]]) abort();
// CHECK-NEXT:    for (int64_t [[J:i[0-9_]+]] = 0; [[J]] < 4; [[J]]++) {
// CHECK-NEXT:      kiln_sort_f32_line(&x{{\[}}[[J]]], 4, &out{{\[}}[[J]]], 4, NULL, 0, 3, [[W]]);
// CHECK-NEXT:    }
// CHECK-NEXT:    free([[W]]);
func.func @sort(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.sort %x axis 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}

// CHECK-LABEL: {{^}}void argsort(
// CHECK:         void *[[W:sort_work[0-9_]*]] = malloc(kiln_sort_i64_work_size(7));
// CHECK:         kiln_sort_i64_line(&x[0], 1, NULL, 0, &out[0], 1, 7, [[W]]);
// CHECK:         free([[W]]);
func.func @argsort(%x: tensor<7xi64>) -> tensor<7xi64> {
  %0 = graph.argsort %x axis 0 : tensor<7xi64> -> tensor<7xi64>
  func.return %0 : tensor<7xi64>
}

// CHECK-LABEL: {{^}}void bincount(
// CHECK:         for (int64_t [[B:bin[0-9_]*]] = 0; [[B]] < 5; [[B]]++) {
// CHECK-NEXT:      out{{\[}}[[B]]] = 0;
// CHECK:         for (int64_t [[I:i[0-9_]+]] = 0; [[I]] < 9; [[I]]++) {
// CHECK-NEXT:      const int64_t [[V:v[0-9_]*]] = i{{\[}}[[I]]];
// CHECK-NEXT:      if ([[V]] >= 0 && [[V]] < 5) out{{\[}}[[V]]] += w{{\[}}[[I]]];
func.func @bincount(%i: tensor<9xi64>, %w: tensor<9xf64>) -> tensor<5xf64> {
  %0 = graph.bincount %i, %w : (tensor<9xi64>, tensor<9xf64>) -> tensor<5xf64>
  func.return %0 : tensor<5xf64>
}

// CHECK-LABEL: {{^}}void searchsorted(
// CHECK:         out{{\[}}[[I:i[0-9_]+]]] = kiln_sort_f32_search(s, 1, 6, v{{\[}}[[I]]], 1);
func.func @searchsorted(%s: tensor<6xf32>, %v: tensor<3xf32>) -> tensor<3xi64> {
  %0 = graph.searchsorted "right", %s, %v : (tensor<6xf32>, tensor<3xf32>) -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}

// histogram: one pass over blocks of 65536 values; a kept value's bin from NumPy's arithmetic,
// corrected by the edges; its count, and its weight added in double to the block's sums, which
// are then added to the result in its type (float here).
// CHECK-LABEL: {{^}}void histogram(
// CHECK:         for (int64_t [[S:start[0-9_]*]] = 0; [[S]] < x_d0; [[S]] += 65536) {
// CHECK:           memset([[BLK:blk[0-9_]*]], 0, sizeof(double) * 1 * 4);
// CHECK:             if (!([[V:v[0-9_]*]] >= [[LO:lo_[0-9]+]] && [[V]] <= [[HI:hi_[0-9]+]])) continue;
// CHECK-NEXT:        const double [[F:f[0-9_]*]] = ([[V]] - [[LO]]) / [[SP:span_[0-9]+]] * (double)4;
// CHECK-NEXT:        int64_t [[B:bin[0-9_]*]] = [[F]] < (double)4 ? (int64_t)[[F]] : 4 - 1;
// CHECK-NEXT:        if ([[V]] < e{{\[}}[[B]]]) [[B]]--; else if ([[B]] != 4 - 1 && [[V]] >= e[([[B]] + 1)]) [[B]]++;
// CHECK-NEXT:        if ([[B]] < 0) continue;
// CHECK-NEXT:        out{{\[}}[[B]]] += 1;
// CHECK-NEXT:        [[BLK]][0 + [[B]]] += (double)w[{{.*}}];
// CHECK:           out_1{{\[}}[[B2:bin[0-9_]*]]] = (float)(out_1{{\[}}[[B2]]] + (float)[[BLK]][0 + [[B2]]]);
// CHECK:         free([[BLK]]);
func.func @histogram(%x: tensor<?xf64>, %lo: tensor<f64>, %hi: tensor<f64>, %span: tensor<f64>, %e: tensor<5xf64>, %w: tensor<?xf32>) -> (tensor<4xi64>, tensor<4xf32>) {
  %c, %s = graph.histogram %x, %lo, %hi, %span, %e, %w : (tensor<?xf64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<5xf64>, tensor<?xf32>) -> (tensor<4xi64>, tensor<4xf32>)
  func.return %c, %s : tensor<4xi64>, tensor<4xf32>
}
