// RUN: kiln-opt %s --split-input-file -p kiln-fold-transposes | filecheck %s

// x.T @ g: the transposed copy is only read by the product, and nothing writes x between them:
// a view with swapped strides instead of the copy.
// CHECK-LABEL: func.func @read_only
// CHECK-NEXT:    %[[T:.*]] = memref.reinterpret_cast %x to offset: [0], sizes: [6, 4], strides: [1, 6] : memref<4x6xf32> to memref<6x4xf32, strided<[1, 6]>>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %g : memref<6x4xf32, strided<[1, 6]>>, memref<4x5xf32>)
// CHECK-NOT:     memref.dealloc
func.func @read_only(%x: memref<4x6xf32>, %g: memref<4x5xf32>, %out: memref<6x5xf32>) {
  %t = memref.alloc() : memref<6x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x6xf32>) outs(%t : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<6x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%t, %g : memref<6x4xf32>, memref<4x5xf32>) outs(%out : memref<6x5xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<6x4xf32>
  func.return
}

// -----

// x is written between the copy and its reader: the copy keeps the old values, so it stays.
// CHECK-LABEL: func.func @source_written_between
// CHECK:         memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NOT:     memref.reinterpret_cast
func.func @source_written_between(%x: memref<4x6xf32>, %out: memref<6x4xf32>) {
  %t = memref.alloc() : memref<6x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x6xf32>) outs(%t : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<4x6xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<6x4xf32>) outs(%out : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<6x4xf32>
  func.return
}

// -----

// The copy is written afterwards (it is an output too): it is an array of its own, it stays.
// CHECK-LABEL: func.func @copy_written
// CHECK:         memref.alloc
// CHECK-NOT:     memref.reinterpret_cast
func.func @copy_written(%x: memref<4x6xf32>, %out: memref<6x4xf32>) {
  %t = memref.alloc() : memref<6x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x6xf32>) outs(%t : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%t : memref<6x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<6x4xf32>) outs(%out : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<6x4xf32>
  func.return
}

// -----

// The source is an intermediate freed right after the copy (its last use until now): it is
// freed after the last reader instead, or the view would read freed memory.
// CHECK-LABEL: func.func @freed_source
// CHECK:         %[[H:.*]] = memref.alloc() : memref<4x6xf32>
// CHECK:         %[[T:.*]] = memref.reinterpret_cast %[[H]]
// CHECK-NOT:     memref.dealloc %[[H]]
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<6x4xf32, strided<[1, 6]>>)
// CHECK-NEXT:    ^bb0
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[H]] : memref<4x6xf32>
func.func @freed_source(%x: memref<4x6xf32>, %out: memref<6x4xf32>) {
  %h = memref.alloc() : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x6xf32>) outs(%h : memref<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  %t = memref.alloc() : memref<6x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h : memref<4x6xf32>) outs(%t : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %h : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<6x4xf32>) outs(%out : memref<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<6x4xf32>
  func.return
}

// -----

// x[:] = x.T: the reader writes the source while it reads the copy, so the copy stays (a view
// would transpose in place, overwriting what it still has to read).
// CHECK-LABEL: func.func @reader_writes_the_source
// CHECK:         memref.alloc
// CHECK-NOT:     memref.reinterpret_cast
func.func @reader_writes_the_source(%x: memref<4x4xf32>) {
  %t = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<4x4xf32>) outs(%x : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<4x4xf32>
  func.return
}
