// RUN: kiln-opt %s -p kiln-parallel-loops | filecheck %s
// RUN: kiln-opt %s -p 'kiln-parallel-loops,convert-linalg-to-loops,kiln-vectorize{isa=avx2}' | filecheck %s --check-prefix=VEC

// A generic with a parallel outermost loop becomes the same nest convert-linalg-to-loops
// builds, its outer loop marked with the elements one iteration covers.
// CHECK-LABEL: func.func @map
// CHECK:       scf.for
// CHECK-NEXT:    scf.for
// CHECK:           math.exp
// CHECK:       } {kiln.parallel = 128 : i64}
// The vectorizer keeps the inner loop vectorized, the outer one parallel.
// VEC-LABEL: func.func @map
// VEC:         vector.load
// VEC:       } {kiln.parallel = 128 : i64}
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @map(%x: memref<?x128xf32>, %out: memref<?x128xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x128xf32>) outs(%out : memref<?x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  func.return
}

// Row sums: each outer iteration reduces into its own output element.
// CHECK-LABEL: func.func @rows
// CHECK:       } {kiln.parallel = 128 : i64}
func.func @rows(%x: memref<?x128xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x128xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// 1-D: the vector loop gets the mark, the (masked) tail stays sequential.
// VEC-LABEL: func.func @flat
// VEC:         vector.store
// VEC-NEXT:  } {kiln.parallel = 1 : i64}
// VEC:         vector.maskedstore
// VEC-NEXT:  }
// VEC-NEXT:  func.return
func.func @flat(%x: memref<?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  func.return
}

// A reduction over the outermost loop, and an output that does not follow d0 (iteration i
// writes to every element), are left to convert-linalg-to-loops.
// CHECK-LABEL: func.func @total
// CHECK:       linalg.generic
// CHECK-LABEL: func.func @broadcast_out
// CHECK:       linalg.generic
func.func @total(%x: memref<128xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<128xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  }
  func.return
}
func.func @broadcast_out(%x: memref<4x8xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [#map, affine_map<(d0, d1) -> (d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  func.return
}
