// A linalg op already on memrefs (no results) passes through kiln-bufferize untouched
// (the kiln-opt mutation fuzzer found it crashing the out-parameter analysis).
// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s

// CHECK-LABEL: func.func @on_memrefs
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}} : memref<4xf32>) outs(%{{.*}} : memref<4xf32>)
// CHECK:         arith.addf
// CHECK:         return
func.func @on_memrefs(%x: memref<4xf32>, %y: memref<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return %t : tensor<4xf32>
}
