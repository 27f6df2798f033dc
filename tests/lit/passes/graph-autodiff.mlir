// RUN: kiln-opt %s --split-input-file -p 'graph-autodiff{func="f" wrt=0,1}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-autodiff{func="f" wrt=0,1},canonicalize,cse,graph-to-c' -t c | filecheck %s --check-prefix=C
// RUN: not kiln-opt %s --split-input-file -p 'graph-autodiff{func="nope"}' 2>&1 | filecheck %s --check-prefix=ERR

// d/dw mean(tanh(x @ w)^2) and d/dx: the product rule of the square, tanh' = 1 - y*y, the
// mean's 1/6 spread back, and matmul's transposed products. f itself is kept.
// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_grad(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> (tensor<f64>, tensor<3x3xf64>, tensor<2x3xf64>)
// CHECK:         %[[MM:.*]] = graph.matmul %x, %w
// CHECK:         %[[Y:.*]] = graph.tanh %[[MM]]
// CHECK:         %[[LOSS:.*]] = graph.reduce "mean"
// CHECK:         %[[SIX:.*]] = graph.constant dense<6.000000e+00> : tensor<f64>
// CHECK:         %[[DY:.*]] = graph.add
// CHECK:         %[[YY:.*]] = graph.mul %[[Y]], %[[Y]]
// CHECK:         %[[ONE_MINUS:.*]] = graph.sub %{{.*}}, %[[YY]]
// CHECK:         %[[DMM:.*]] = graph.mul %[[DY]], %[[ONE_MINUS]]
// CHECK:         %[[WT:.*]] = graph.transpose %w perm array<i64: 1, 0>
// CHECK:         %[[DX:.*]] = graph.matmul %[[DMM]], %[[WT]]
// CHECK:         %[[XT:.*]] = graph.transpose %x perm array<i64: 1, 0>
// CHECK:         %[[DW:.*]] = graph.matmul %[[XT]], %[[DMM]]
// CHECK:         func.return %[[LOSS]], %[[DW]], %[[DX]]
// C: void f_grad(
// ERR: graph-autodiff: no function @nope in the module
func.func @f(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> tensor<f64> {
  %0 = graph.matmul %x, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %1 = graph.tanh %0 : tensor<2x3xf64>
  %2 = graph.mul %1, %1 : tensor<2x3xf64>
  %3 = graph.reduce "mean", %2 axes array<i64: 0, 1> : tensor<2x3xf64> -> tensor<f64>
  func.return %3 : tensor<f64>
}

// -----

// Broadcasts sum back, integer paths get no gradient (the argument unused by float ops gets
// zeros), and an op without a rule on the path is an error at its location.
// CHECK-LABEL: func.func @f_grad(%a: tensor<3xf32>, %b: tensor<2x3xf32>)
// CHECK:         %[[BA:.*]] = graph.broadcast %a : tensor<3xf32> -> tensor<2x3xf32>
// CHECK:         graph.reduce "sum", %{{.*}} axes array<i64: 0> : tensor<2x3xf32> -> tensor<3xf32>
// CHECK:         func.return
func.func @f(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<f32> {
  %0 = graph.broadcast %a : tensor<3xf32> -> tensor<2x3xf32>
  %1 = graph.mul %0, %b : tensor<2x3xf32>
  %2 = graph.reduce "sum", %1 axes array<i64: 0, 1> : tensor<2x3xf32> -> tensor<f32>
  func.return %2 : tensor<f32>
}

// -----

// A "set" scatter at indices of a run-time length with updates of a static one (x[mask] = v):
// the gradient gathered at the indices is reshaped to the updates' static shape, and so are the
// numbers that mark the last write to each position.
// CHECK-LABEL: func.func @f_grad(%x: tensor<5xf64>, %v: tensor<3xf64>, %i: tensor<?xi64>) -> (tensor<f64>, tensor<5xf64>, tensor<3xf64>)
// CHECK:         %[[G:.*]] = graph.gather %{{.*}}[%i] : (tensor<5xf64>, tensor<?xi64>) -> tensor<?xf64>
// CHECK-NEXT:    %[[GS:.*]] = graph.reshape %[[G]] : tensor<?xf64> -> tensor<3xf64>
// CHECK:         %[[N:.*]] = graph.gather %{{.*}}[%i] : (tensor<5xi64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    %{{.*}} = graph.reshape %[[N]] : tensor<?xi64> -> tensor<3xi64>
// CHECK:         %[[DV:.*]] = graph.mul %[[GS]], %{{.*}} : tensor<3xf64>
// CHECK:         func.return %{{.*}}, %{{.*}}, %[[DV]] : tensor<f64>, tensor<5xf64>, tensor<3xf64>
func.func @f(%x: tensor<5xf64>, %v: tensor<3xf64>, %i: tensor<?xi64>) -> tensor<f64> {
  %s = graph.scatter "set" %v into %x[%i] : (tensor<3xf64>, tensor<5xf64>, tensor<?xi64>) -> tensor<5xf64>
  %m = graph.mul %s, %s : tensor<5xf64>
  %r = graph.reduce "sum", %m axes array<i64: 0> : tensor<5xf64> -> tensor<f64>
  func.return %r : tensor<f64>
}

// -----

// A run-time check ordered by no token (an index in range) inside a loop is recomputed in the
// reverse loop like a pure op: it passed in the forward run (kiln.fuzz grad 15480-9).
// CHECK-LABEL: func.func @f_grad(%w: tensor<3xf64>, %x: tensor<3xf64>)
// CHECK:         graph.scatter_row
// CHECK:         graph.while
// CHECK:           graph.check %{{.*}}, "IndexError: f.py:5:9: index out of bounds"
// CHECK:           graph.scatter "add"
// CHECK:         func.return
func.func @f(%w: tensor<3xf64>, %x: tensor<3xf64>) -> tensor<f64> {
  %g = graph.constant dense<[2, 0, 1]> : tensor<3xi64>
  %zero = graph.constant dense<0> : tensor<i64>
  %y, %n = graph.while(%w, %zero) : (tensor<3xf64>, tensor<i64>) -> (tensor<3xf64>, tensor<i64>) cond {
  ^bb0(%cy: tensor<3xf64>, %ck: tensor<i64>):
    %five = graph.constant dense<5> : tensor<i64>
    %lt = graph.cmp "lt", %ck, %five : tensor<i64> -> tensor<i1>
    graph.condition %lt, %cy, %ck : tensor<3xf64>, tensor<i64>
  } do {
  ^bb0(%by: tensor<3xf64>, %bk: tensor<i64>):
    %ok = graph.constant dense<true> : tensor<i1>
    graph.check %ok, "IndexError: f.py:5:9: index out of bounds" : tensor<i1>
    %v = graph.gather %by[%g] : (tensor<3xf64>, tensor<3xi64>) -> tensor<3xf64>
    %s = graph.sin %v : tensor<3xf64>
    %m = graph.mul %s, %x : tensor<3xf64>
    %one = graph.constant dense<1> : tensor<i64>
    %next = graph.add %bk, %one : tensor<i64>
    graph.yield %m, %next : tensor<3xf64>, tensor<i64>
  }
  %r = graph.reduce "sum", %y axes array<i64: 0> : tensor<3xf64> -> tensor<f64>
  func.return %r : tensor<f64>
}

// -----

// np.sort along rows: the gradient is scattered back to the positions the stable argsort gives,
// each row's (its row index an i64 constant broadcast along the sorted axis).
// CHECK-LABEL: func.func @f_grad(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> (tensor<f64>, tensor<2x3xf64>, tensor<2x3xf64>)
// CHECK:         %[[S:.*]] = graph.sort %x axis 1 : tensor<2x3xf64> -> tensor<2x3xf64>
// CHECK:         %[[ROW:.*]] = graph.constant dense<[0, 1]> : tensor<2xi64>
// CHECK-NEXT:    %[[ROWS:.*]] = graph.reshape %[[ROW]] : tensor<2xi64> -> tensor<2x1xi64>
// CHECK-NEXT:    %[[R:.*]] = graph.broadcast %[[ROWS]] : tensor<2x1xi64> -> tensor<2x3xi64>
// CHECK:         %[[P:.*]] = graph.argsort %x axis 1 : tensor<2x3xf64> -> tensor<2x3xi64>
// CHECK:         %[[DX:.*]] = graph.scatter "add" %{{.*}} into %{{.*}}[%[[R]], %[[P]]]
// CHECK:         func.return %{{.*}}, %[[DX]], %{{.*}}
func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x3xf64>) -> tensor<f64> {
  %s = graph.sort %x axis 1 : tensor<2x3xf64> -> tensor<2x3xf64>
  %m = graph.mul %s, %w : tensor<2x3xf64>
  %r = graph.reduce "sum", %m axes array<i64: 0, 1> : tensor<2x3xf64> -> tensor<f64>
  func.return %r : tensor<f64>
}
