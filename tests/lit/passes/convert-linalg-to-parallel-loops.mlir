// RUN: kiln-opt %s -p convert-linalg-to-parallel-loops,lower-affine,canonicalize,cse | filecheck %s

// Elementwise with a shifted output map (concatenation): one scf.parallel, the shift lowered.
// CHECK-LABEL: func.func @shifted
// CHECK:         "scf.parallel"
// CHECK:           %[[V:.*]] = memref.load %x[%[[I:.*]]] : memref<3xf32>
// CHECK:           %[[J:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:           memref.store %[[V]], %out[%[[J]]] : memref<6xf32>
// CHECK:           scf.reduce
func.func @shifted(%x: memref<3xf32>, %out: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 + 3)>], iterator_types = ["parallel"]} ins(%x : memref<3xf32>) outs(%out : memref<6xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  func.return
}

// A sum: the reduction dimension is an inner scf.parallel combining with scf.reduce,
// started at the identity (-0.0) and combined with the output's initial value.
// CHECK-LABEL: func.func @row_sum
// CHECK:         "scf.parallel"
// CHECK:           %[[INIT:.*]] = memref.load %out[%{{.*}}] : memref<4xf32>
// CHECK:           %[[P:.*]] = "scf.parallel"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}>
// CHECK:             scf.reduce(%{{.*}} : f32)
// CHECK:               arith.addf
// CHECK:           %[[F:.*]] = arith.addf %[[INIT]], %[[P]] : f32
// CHECK:           memref.store %[[F]], %out
func.func @row_sum(%x: memref<4x?xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x?xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// A body that is not op(acc, x) with an associative op runs sequentially (scf.for).
// CHECK-LABEL: func.func @not_associative
// CHECK:         "scf.parallel"
// CHECK:           scf.for {{.*}} iter_args
// CHECK:             arith.subf
// CHECK-NOT:       scf.reduce(
func.func @not_associative(%x: memref<4x5xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x5xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// linalg.fill of a 0-d memref: a one-point scf.parallel.
// CHECK-LABEL: func.func @fill0d
// CHECK:         "scf.parallel"
// CHECK:           memref.store %v, %out[] : memref<f32>
func.func @fill0d(%v: f32, %out: memref<f32>) {
  linalg.fill ins(%v : f32) outs(%out : memref<f32>)
  func.return
}
