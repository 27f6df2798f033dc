// RUN: kiln-opt %s --split-input-file -p linalg-fuse-shared | filecheck %s

// z = z*z + c is read by |z| > 2 and returned: one loop stores z and compares it from registers
// (mandelbrot2's step). The reader's output comes first, the producer's last.
// CHECK-LABEL: func.func @step
// CHECK:         %[[M:.*]], %[[Z:.*]] = linalg.generic {{.*}} ins(%z, %c : tensor<?xf64>, tensor<?xf64>) outs(%em, %ez : tensor<?xi1>, tensor<?xf64>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: i1, %{{.*}}: f64):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[SQ]], %[[B]] : f64
// CHECK-NEXT:      %[[G:.*]] = arith.cmpf ogt, %[[S]], %two : f64
// CHECK-NEXT:      linalg.yield %[[G]], %[[S]] : i1, f64
// CHECK-NOT:     linalg.generic
// CHECK:         func.return %[[M]], %[[Z]]
func.func @step(%z: tensor<?xf64>, %c: tensor<?xf64>, %ez: tensor<?xf64>, %em: tensor<?xi1>, %two: f64) -> (tensor<?xi1>, tensor<?xf64>) {
  %z2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%z, %c : tensor<?xf64>, tensor<?xf64>) outs(%ez : tensor<?xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %sq = arith.mulf %a, %a : f64
    %s = arith.addf %sq, %b : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%z2 : tensor<?xf64>) outs(%em : tensor<?xi1>) {
  ^bb0(%x: f64, %o: i1):
    %g = arith.cmpf ogt, %x, %two : f64
    linalg.yield %g : i1
  } -> tensor<?xi1>
  func.return %m, %z2 : tensor<?xi1>, tensor<?xf64>
}

// -----

// Left alone: a first reader that transposes (not the producer's order), and a first reader that
// reduces (%q, also written into by a later one).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @kept(%x: tensor<4x4xf64>, %e: tensor<4x4xf64>, %s: tensor<f64>, %w: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<f64>, tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64>) {
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf64>) outs(%e : tensor<4x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<4x4xf64>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<4x4xf64>) outs(%e : tensor<4x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<4x4xf64>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf64>) outs(%e : tensor<4x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %n = arith.negf %a : f64
    linalg.yield %n : f64
  } -> tensor<4x4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%q : tensor<4x4xf64>) outs(%s : tensor<f64>) {
  ^bb0(%a: f64, %o: f64):
    %n = arith.addf %a, %o : f64
    linalg.yield %n : f64
  } -> tensor<f64>
  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<4x4xf64>) outs(%q : tensor<4x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %n = arith.mulf %a, %a : f64
    linalg.yield %n : f64
  } -> tensor<4x4xf64>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x4xf64>) outs(%q : tensor<4x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<4x4xf64>
  func.return %t, %r, %u, %v, %p : tensor<4x4xf64>, tensor<f64>, tensor<4x4xf64>, tensor<4x4xf64>, tensor<4x4xf64>
}
