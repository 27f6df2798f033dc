// RUN: kiln-opt %s --split-input-file -p linalg-fuse-siblings | filecheck %s
// RUN: kiln-opt %s --split-input-file -p linalg-fuse-siblings,linalg-fuse-elementwise | filecheck %s --check-prefix=FUSED

// A masked mean's sum and count read one mask: one generic with both outputs, the earlier
// body first; linalg-fuse-elementwise then reads the mask once and inlines its producer.
// CHECK-LABEL: func.func @sum_and_count
// CHECK:         %[[M:.*]] = linalg.generic
// CHECK:           arith.cmpf
// CHECK:         %{{.*}}, %{{.*}} = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[M]], %x, %[[M]] : tensor<8xi1>, tensor<8xf64>, tensor<8xi1>) outs(%{{.*}}, %{{.*}} : tensor<f64>, tensor<f64>)
// CHECK:           arith.select
// CHECK-NEXT:      arith.addf
// CHECK:           arith.select
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      linalg.yield %{{.*}}, %{{.*}} : f64, f64
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @sum_and_count
// FUSED-COUNT-1: linalg.generic
// FUSED-SAME:      ins(%x : tensor<8xf64>) outs(%i0, %i0
// FUSED-COUNT-1:   arith.cmpf
// FUSED-NOT:     linalg.generic
func.func @sum_and_count(%x: tensor<8xf64>) -> (tensor<f64>, tensor<f64>) {
  %zero = arith.constant 0.000000e+00 : f64
  %one = arith.constant 1.000000e+00 : f64
  %eb = tensor.empty() : tensor<8xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%eb : tensor<8xi1>) {
  ^bb0(%a: f64, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f64
    linalg.yield %c : i1
  } -> tensor<8xi1>
  %e0 = tensor.empty() : tensor<f64>
  %i0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m, %x : tensor<8xi1>, tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%k: i1, %a: f64, %acc: f64):
    %v = arith.select %k, %a, %zero : f64
    %r = arith.addf %acc, %v : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%m : tensor<8xi1>) outs(%i0 : tensor<f64>) {
  ^bb0(%k: i1, %acc: f64):
    %v = arith.select %k, %one, %zero : f64
    %r = arith.addf %acc, %v : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  func.return %s, %n : tensor<f64>, tensor<f64>
}

// -----

// Not merged: the second reduction reads the first's result (a dependence), and the third
// reads another tensor (its loops might differ), and an elementwise generic never merges.
// CHECK-LABEL: func.func @apart
// FUSED-LABEL: func.func @apart
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @apart(%x: tensor<8xf64>, %y: tensor<8xf64>) -> (tensor<f64>, tensor<f64>, tensor<f64>, tensor<8xf64>) {
  %zero = arith.constant 0.000000e+00 : f64
  %e0 = tensor.empty() : tensor<f64>
  %i0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x, %s : tensor<8xf64>, tensor<f64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %d = arith.subf %a, %b : f64
    %r = arith.addf %acc, %d : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %u = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%y : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.maximumf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %e = tensor.empty() : tensor<8xf64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = arith.negf %a : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  func.return %s, %t, %u, %w : tensor<f64>, tensor<f64>, tensor<f64>, tensor<8xf64>
}

// -----

// Not merged: an f64 sum and an i64 count (the count would keep the sum from vectorizing).
// CHECK-LABEL: func.func @mixed_types
// CHECK-COUNT-2: linalg.generic {{.*}} iterator_types = ["reduction"]
// FUSED-LABEL: func.func @mixed_types
func.func @mixed_types(%x: tensor<8xf64>) -> (tensor<f64>, tensor<i64>) {
  %zero = arith.constant 0.000000e+00 : f64
  %z = arith.constant 0 : i64
  %e0 = tensor.empty() : tensor<f64>
  %i0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %e1 = tensor.empty() : tensor<i64>
  %i1 = linalg.fill ins(%z : i64) outs(%e1 : tensor<i64>) -> tensor<i64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i1 : tensor<i64>) {
  ^bb0(%a: f64, %acc: i64):
    %c = arith.cmpf one, %a, %zero : f64
    %k = arith.extui %c : i1 to i64
    %r = arith.addi %acc, %k : i64
    linalg.yield %r : i64
  } -> tensor<i64>
  func.return %s, %n : tensor<f64>, tensor<i64>
}

// -----

// Not merged on buffers: the second reduction reads what the first writes.
// CHECK-LABEL: func.func @buffers
// CHECK-COUNT-2: linalg.generic
// FUSED-LABEL: func.func @buffers
func.func @buffers(%x: memref<8xf64>, %s: memref<f64>, %t: memref<f64>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<8xf64>) outs(%s : memref<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x, %s : memref<8xf64>, memref<f64>) outs(%t : memref<f64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %d = arith.subf %a, %b : f64
    %r = arith.addf %acc, %d : f64
    linalg.yield %r : f64
  }
  func.return
}

// -----

// Many reductions of one tensor (a list of sums) become one generic in one step, the bodies
// in program order; %late's result is read before %u, so %u cannot join that group: it starts
// one of its own, which %w joins.
// CHECK-LABEL: func.func @many
// CHECK:         %s, %t, %late = linalg.generic {{.*}} ins(%x, %x, %x : {{.*}}) outs(%i0, %i0, %i0 : {{.*}})
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f64, %[[B:.*]]: f64, %[[C:.*]]: f64, %[[S:.*]]: f64, %[[T:.*]]: f64, %[[U:.*]]: f64):
// CHECK-NEXT:      arith.addf %[[S]], %[[A]]
// CHECK-NEXT:      arith.maximumf %[[T]], %[[B]]
// CHECK-NEXT:      arith.minimumf %[[U]], %[[C]]
// CHECK-NEXT:      linalg.yield
// CHECK:         tensor.extract
// CHECK:         %u, %w = linalg.generic {{.*}} ins(%x, %x : {{.*}})
// CHECK-NOT:     linalg.generic
// FUSED-LABEL: func.func @many
func.func @many(%x: tensor<8xf64>) -> (tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, f64) {
  %zero = arith.constant 0.000000e+00 : f64
  %e0 = tensor.empty() : tensor<f64>
  %i0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.maximumf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %late = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.minimumf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %read = tensor.extract %late[] : tensor<f64>
  %u = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.mulf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<8xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.subf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  func.return %s, %t, %late, %u, %w, %read : tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, f64
}
