// RUN: kiln-opt %s --split-input-file -p linalg-cse | filecheck %s

// Two x[mask] of one mask each count it (convert-graph-to-linalg's fill and reduction): one
// count sizes both outputs.
// CHECK-LABEL: func.func @one_count
// CHECK-COUNT-1: linalg.fill
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     linalg.fill
// CHECK:         %[[N:.*]] = tensor.extract
// CHECK:         func.return %[[N]], %[[N]] : i64, i64
func.func @one_count(%m: tensor<?xi1>) -> (i64, i64) {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %f1 = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %c1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m : tensor<?xi1>) outs(%f1 : tensor<i64>) {
  ^bb0(%a: i1, %acc: i64):
    %x = arith.extui %a : i1 to i64
    %s = arith.addi %acc, %x : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %n1 = tensor.extract %c1[] : tensor<i64>
  %f2 = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %c2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m : tensor<?xi1>) outs(%f2 : tensor<i64>) {
  ^bb0(%b: i1, %acc2: i64):
    %y = arith.extui %b : i1 to i64
    %t = arith.addi %acc2, %y : i64
    linalg.yield %t : i64
  } -> tensor<i64>
  %n2 = tensor.extract %c2[] : tensor<i64>
  func.return %n1, %n2 : i64, i64
}

// -----

// Another body, another operand, or an op on memrefs (it writes): all stay. A copy inside an
// scf.if sees the one before it.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%x : tensor<4xf64>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%x : tensor<4xf64>)
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%y : tensor<4xf64>)
// CHECK:           arith.addf
// CHECK-COUNT-2: linalg.fill ins(%{{.*}} : f64) outs(%buf : memref<4xf64>)
// CHECK:         scf.if
// CHECK-NEXT:      scf.yield %[[A]] : tensor<4xf64>
func.func @kept(%x: tensor<4xf64>, %y: tensor<4xf64>, %buf: memref<4xf64>, %c: i1) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %e = tensor.empty() : tensor<4xf64>
  %one = arith.constant 1.0 : f64
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%i: f64, %o: f64):
    %r = arith.addf %i, %one : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%i: f64, %o: f64):
    %r = arith.mulf %i, %one : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%i: f64, %o: f64):
    %r = arith.addf %i, %one : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  linalg.fill ins(%one : f64) outs(%buf : memref<4xf64>)
  linalg.fill ins(%one : f64) outs(%buf : memref<4xf64>)
  %in = scf.if %c -> (tensor<4xf64>) {
    %a2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
    ^bb0(%i: f64, %o: f64):
      %r = arith.addf %i, %one : f64
      linalg.yield %r : f64
    } -> tensor<4xf64>
    scf.yield %a2 : tensor<4xf64>
  } else {
    scf.yield %x : tensor<4xf64>
  }
  func.return %a, %b, %d, %in : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// Bodies alike but for the type one op rounds to: two values (x.astype(f32) and x.astype(f16),
// each back to float64).
// CHECK-LABEL: func.func @rounds
// CHECK:         arith.truncf %{{.*}} : f64 to f32
// CHECK:         arith.truncf %{{.*}} : f64 to f16
func.func @rounds(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %e = tensor.empty() : tensor<2xf64>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf64>) outs(%e : tensor<2xf64>) {
  ^bb0(%i: f64, %o: f64):
    %t = arith.truncf %i : f64 to f32
    %r = arith.extf %t : f32 to f64
    linalg.yield %r : f64
  } -> tensor<2xf64>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf64>) outs(%e : tensor<2xf64>) {
  ^bb0(%i: f64, %o: f64):
    %t = arith.truncf %i : f64 to f16
    %r = arith.extf %t : f16 to f64
    linalg.yield %r : f64
  } -> tensor<2xf64>
  func.return %a, %b : tensor<2xf64>, tensor<2xf64>
}
