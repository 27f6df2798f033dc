// RUN: kiln-opt %s --split-input-file -p linalg-fuse-elementwise,canonicalize,cse | filecheck %s

// relu(2*x+1)*sigmoid(x) - x/3: one generic, one input, splat constants as scalars, no reassociation.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:      ins(%x : tensor<8xf32>)
// CHECK-DAG:       arith.constant 3.000000e+00 : f32
// CHECK-DAG:       arith.constant 2.000000e+00 : f32
// CHECK-DAG:       math.exp
// CHECK:           arith.maximumf
// CHECK:           arith.subf
// CHECK-NOT:     linalg.generic
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = arith.constant dense<2.000000e+00> : tensor<f32>
  %1 = tensor.empty() : tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<f32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%3: f32, %4: f32):
    linalg.yield %3 : f32
  } -> tensor<8xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2, %x : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%6: f32, %7: f32, %8: f32):
    %9 = arith.mulf %6, %7 : f32
    linalg.yield %9 : f32
  } -> tensor<8xf32>
  %10 = arith.constant dense<1.000000e+00> : tensor<f32>
  %11 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%10 : tensor<f32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%12: f32, %13: f32):
    linalg.yield %12 : f32
  } -> tensor<8xf32>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%5, %11 : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%15: f32, %16: f32, %17: f32):
    %18 = arith.addf %15, %16 : f32
    linalg.yield %18 : f32
  } -> tensor<8xf32>
  %19 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%14 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%20: f32, %21: f32):
    %22 = arith.constant 0.000000e+00 : f32
    %23 = arith.maximumf %20, %22 : f32
    linalg.yield %23 : f32
  } -> tensor<8xf32>
  %24 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%25: f32, %26: f32):
    %27 = arith.constant 1.000000e+00 : f32
    %28 = arith.negf %25 : f32
    %29 = math.exp %28 : f32
    %30 = arith.addf %27, %29 : f32
    %31 = arith.divf %27, %30 : f32
    linalg.yield %31 : f32
  } -> tensor<8xf32>
  %32 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%19, %24 : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%33: f32, %34: f32, %35: f32):
    %36 = arith.mulf %33, %34 : f32
    linalg.yield %36 : f32
  } -> tensor<8xf32>
  %37 = arith.constant dense<3.000000e+00> : tensor<f32>
  %38 = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%37 : tensor<f32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%39: f32, %40: f32):
    linalg.yield %39 : f32
  } -> tensor<8xf32>
  %41 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %38 : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%42: f32, %43: f32, %44: f32):
    %45 = arith.divf %42, %43 : f32
    linalg.yield %45 : f32
  } -> tensor<8xf32>
  %46 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%32, %41 : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
  ^bb0(%47: f32, %48: f32, %49: f32):
    %50 = arith.subf %47, %48 : f32
    linalg.yield %50 : f32
  } -> tensor<8xf32>
  func.return %46 : tensor<8xf32>
}

// -----

// transpose(y) + b (b broadcast along rows): the transpose and broadcast maps are composed.
// CHECK-LABEL: func.func @transpose_bias
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%y, %b : tensor<4x3xf32>, tensor<4xf32>)
// CHECK-NOT:     linalg.generic
func.func @transpose_bias(%y: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  %bb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %bb : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

// sum(exp(y), axis=1): the elementwise producer is computed inside the reduction's body.
// CHECK-LABEL: func.func @reduce_exp
// CHECK:         linalg.fill
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x3xf32>)
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
func.func @reduce_exp(%y: tensor<4x3xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<4x3xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e2 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x3xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// An expensive producer (exp) read by two consumers is kept, not duplicated.
// CHECK-LABEL: func.func @multi_use
// CHECK:         %[[EXP:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[EXP]]
// CHECK:         linalg.generic {{.*}} ins(%[[EXP]]
// CHECK-NOT:       math.exp
func.func @multi_use(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %c1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %c2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  func.return %c1, %c2 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A producer one consumer reads twice the same way (an expensive one, and the broadcast of a
// computed 0-d value, which is not duplicable) is one use: fused once, nothing left apart.
// CHECK-LABEL: func.func @read_twice
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:      ins(%x, %{{.*}} : tensor<8xf64>, tensor<f64>)
// CHECK-COUNT-1:   math.exp
// CHECK-NOT:     linalg.generic
func.func @read_twice(%x: tensor<8xf64>, %s: tensor<f64>) -> tensor<8xf64> {
  %e0 = tensor.empty() : tensor<f64>
  %e = tensor.empty() : tensor<8xf64>
  %z = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%s : tensor<f64>) outs(%e0 : tensor<f64>) {
  ^bb0(%a: f64, %o: f64):
    %v = arith.negf %a : f64
    linalg.yield %v : f64
  } -> tensor<f64>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%z : tensor<f64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    linalg.yield %a : f64
  } -> tensor<8xf64>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %o: f64):
    %v = math.exp %a : f64
    linalg.yield %v : f64
  } -> tensor<8xf64>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p, %b, %p, %b, %x : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %bb: f64, %a2: f64, %bb2: f64, %xx: f64, %o: f64):
    %u = arith.addf %a, %bb : f64
    %w = arith.mulf %a2, %bb2 : f64
    %y = arith.subf %u, %w : f64
    %r = arith.addf %y, %xx : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  func.return %c : tensor<8xf64>
}

// -----

// A chain whose every step also reads %x (an unrolled update x_k+1 = f(x_k, x)): each producer's
// read of %x goes through the consumer's argument, one input in the end. A step that reads %y
// before %x keeps the inputs in the order of the reads: %y, then %x.
// CHECK-LABEL: func.func @every_step_reads_x
// CHECK-COUNT-1: linalg.generic
// CHECK-SAME:      ins(%y, %x : tensor<8xf64>, tensor<8xf64>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
// CHECK-NOT:     linalg.generic
func.func @every_step_reads_x(%x: tensor<8xf64>, %y: tensor<8xf64>) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<8xf64>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y, %x : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %r = arith.mulf %v, %w : f64
    %r2 = arith.mulf %r, %w : f64
    linalg.yield %r2 : f64
  } -> tensor<8xf64>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %x : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %r = arith.subf %v, %w : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b, %x : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %r = arith.mulf %v, %w : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  func.return %c : tensor<8xf64>
}
