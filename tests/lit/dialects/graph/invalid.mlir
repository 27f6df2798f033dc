// RUN: kiln-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @mismatched(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "graph.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: attribute tensor<2xf32> expected from variable 'T', but got tensor<3xf32>

// -----

func.func @div_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = graph.div %a, %a : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
// CHECK: graph.div is defined on floats and complex numbers, got element type i32

// -----

func.func @exp_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  %0 = graph.exp %a : tensor<2xi1>
  func.return %0 : tensor<2xi1>
}
// CHECK: graph.exp is defined on floats and complex numbers, got element type i1

// -----

func.func @bad_pred(%a: tensor<2xf32>) -> tensor<2xi1> {
  %0 = graph.cmp "less", %a, %a : tensor<2xf32> -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}
// CHECK: graph.cmp: unknown predicate 'less', expected one of eq, ne, lt, le, gt, ge

// -----

func.func @bad_broadcast(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = graph.broadcast %a : tensor<3xf32> -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}
// CHECK: graph.broadcast: shape (3,) cannot broadcast to (2, 4)

// -----

func.func @bad_reshape(%a: tensor<6xf32>) -> tensor<4xf32> {
  %0 = graph.reshape %a : tensor<6xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
// CHECK: graph.reshape: cannot reshape (6,) (6 elements) to (4,) (4 elements)

// -----

func.func @bad_matmul(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}
// CHECK: graph.matmul: matmul: contracted dimensions differ: 3 (of (2, 3)) vs 4 (of (4, 5))

// -----

func.func @bad_reduce(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = graph.reduce "sum", %a axes array<i64: 2> : tensor<2x3xf32> -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: graph.reduce: axes [2] must be sorted, unique and within rank 2

// -----

func.func @bad_slice(%a: tensor<4xf32>) -> tensor<3xf32> {
  %0 = graph.slice %a start array<i64: 2> stride array<i64: 1> : tensor<4xf32> -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: graph.slice: axis 0 reads indices 2..4 of a dimension of size 4

// -----

func.func @bad_transpose(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = graph.transpose %a perm array<i64: 0, 0> : tensor<2x3xf32> -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}
// CHECK: graph.transpose: [0, 0] is not a permutation of 2 axes

// -----

func.func @bad_mean(%a: tensor<2xi32>) -> tensor<i32> {
  %0 = graph.reduce "mean", %a axes array<i64: 0> : tensor<2xi32> -> tensor<i32>
  func.return %0 : tensor<i32>
}
// CHECK: graph.reduce "mean" is defined on floats and complex numbers (cast integers first)

// -----

func.func @cond_types(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.cond %p -> (tensor<2xf32>) {
    graph.yield %x : tensor<2xf32>
  } else {
    graph.yield %p : tensor<i1>
  }
  func.return %r : tensor<2xf32>
}
// CHECK: graph.cond: the else-region yields (tensor<i1>) but (tensor<2xf32>) is expected

// -----

func.func @while_carried(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  %r = graph.while (%x) : (tensor<2xf32>) -> (tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    graph.condition %p, %a : tensor<2xf32>
  } do {
  ^bb0(%a: tensor<2xf32>):
    %b = graph.reduce "sum", %a axes array<i64: 0> : tensor<2xf32> -> tensor<f32>
    graph.yield %b : tensor<f32>
  }
  func.return %r : tensor<2xf32>
}
// CHECK: graph.while: the body yields (tensor<f32>) but (tensor<2xf32>) is expected

// -----

func.func @print_holes(%x: tensor<2xf32>) {
  graph.print "{} {}" (%x : tensor<2xf32>)
  func.return
}
// CHECK: graph.print: the format has 2 '{}' but 1 values are given

// -----

func.func @assign_type(%x: tensor<3xf32>, %v: !graph.resource<tensor<2xf32>>) {
  graph.assign %x to %v : tensor<3xf32> to !graph.resource<tensor<2xf32>>
  func.return
}
// CHECK: graph.assign: cannot store tensor<3xf32> in !graph.resource<tensor<2xf32>>

// -----

func.func @hypot_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = graph.hypot %a, %a : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
// CHECK: graph.hypot is defined on floats, got element type i32

// -----

func.func @shift_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = graph.left_shift %a, %a : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: graph.left_shift is defined on integers or bools, got element type f32

// -----

func.func @sign_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  %0 = graph.sign %a : tensor<2xi1>
  func.return %0 : tensor<2xi1>
}
// CHECK: graph.sign is defined on numbers (not bool), got element type i1

// -----

func.func @signbit_int(%a: tensor<2xi32>) -> tensor<2xi1> {
  %0 = graph.signbit %a : tensor<2xi32> -> tensor<2xi1>
  func.return %0 : tensor<2xi1>
}
// CHECK: graph.signbit is defined on floats, got element type i32

// -----

func.func @isnan_not_bool(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "graph.isnan"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
// CHECK: graph.isnan: result must be tensor<2xi1>, got tensor<2xf32>
