// RUN: kiln-opt %s --split-input-file -p kiln-elide-copies | filecheck %s

// A variable's snapshot only read by the product: the product reads the variable. The update
// into a new buffer, then copied into the variable, is computed in the variable.
// CHECK-LABEL: func.func @snapshot_and_update
// CHECK-NOT:     memref.alloc() : memref<4x6xf32>
// CHECK:         linalg.generic {{.*}} ins(%x, %w : memref<2x4xf32>, memref<4x6xf32>) outs(%out : memref<2x6xf32>)
// CHECK:         linalg.generic {{.*}} ins(%w, %g : memref<4x6xf32>, memref<4x6xf32>) outs(%w : memref<4x6xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return
func.func @snapshot_and_update(%x: memref<2x4xf32>, %w: memref<4x6xf32>, %g: memref<4x6xf32>, %out: memref<2x6xf32>) {
  %s = memref.alloc() : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : memref<4x6xf32>) outs(%s : memref<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %s : memref<2x4xf32>, memref<4x6xf32>) outs(%out : memref<2x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  }
  memref.dealloc %s : memref<4x6xf32>
  %s2 = memref.alloc() : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : memref<4x6xf32>) outs(%s2 : memref<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %n = memref.alloc() : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s2, %g : memref<4x6xf32>, memref<4x6xf32>) outs(%n : memref<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  memref.dealloc %s2 : memref<4x6xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : memref<4x6xf32>) outs(%w : memref<4x6xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<4x6xf32>
  func.return
}

// -----

// The source is written before the snapshot's last reader: the snapshot keeps the old values.
// CHECK-LABEL: func.func @source_written_before_the_read
// CHECK:         %[[S:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         ins(%w : memref<4xf32>) outs(%[[S]] : memref<4xf32>)
// CHECK:         outs(%w : memref<4xf32>)
// CHECK:         ins(%[[S]] : memref<4xf32>) outs(%out : memref<4xf32>)
func.func @source_written_before_the_read(%w: memref<4xf32>, %out: memref<4xf32>) {
  %s = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : memref<4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %c = arith.constant 2.0 : f32
  linalg.fill ins(%c : f32) outs(%w : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  }
  memref.dealloc %s : memref<4xf32>
  func.return
}

// -----

// The update reads the destination reversed: written in place, element 0 would read element
// 3 already overwritten. The new buffer and its copy stay.
// CHECK-LABEL: func.func @reads_the_destination_elsewhere
// CHECK:         %[[N:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         outs(%[[N]] : memref<4xf32>)
// CHECK:         ins(%[[N]] : memref<4xf32>) outs(%w : memref<4xf32>)
func.func @reads_the_destination_elsewhere(%w: memref<4xf32>) {
  %n = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (3 - d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : memref<4xf32>) outs(%n : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%n : memref<4xf32>) outs(%w : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<4xf32>
  func.return
}

// -----

// The destination is read between the update and the copy: it must keep its old values there.
// CHECK-LABEL: func.func @destination_read_before_the_copy
// CHECK:         %[[N:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         ins(%[[N]] : memref<4xf32>) outs(%w : memref<4xf32>)
func.func @destination_read_before_the_copy(%w: memref<4xf32>, %g: memref<4xf32>, %out: memref<4xf32>) {
  %n = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w, %g : memref<4xf32>, memref<4xf32>) outs(%n : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.addf %a, %b : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%n : memref<4xf32>) outs(%w : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<4xf32>
  func.return
}

// -----

// `c[:] = c * 2 + g`: the copy goes into a view of all of c (zero offsets, unit strides, c's
// sizes), defined after the update. The update writes c itself, in place, and the view goes.
// CHECK-LABEL: func.func @whole_view_of_the_destination
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.subview
// CHECK:         ins(%c, %g : memref<2x4xf32>, memref<2x4xf32>) outs(%c : memref<2x4xf32>)
// CHECK:         linalg.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @whole_view_of_the_destination(%c: memref<2x4xf32>, %g: memref<2x4xf32>) {
  %n = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %g : memref<2x4xf32>, memref<2x4xf32>) outs(%n : memref<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    %d = arith.addf %t, %b : f32
    linalg.yield %d : f32
  }
  %v = memref.subview %c[0, 0] [2, 4] [1, 1] : memref<2x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : memref<2x4xf32>) outs(%v : memref<2x4xf32, strided<[4, 1]>>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<2x4xf32>
  func.return
}

// -----

// `c[1:] = c[:2] + 1` on 3 rows: the view is a part of c, shifted from what the update reads.
// Written in place, row 1 would be overwritten before it is read. The copy stays.
// CHECK-LABEL: func.func @shifted_view_of_the_destination
// CHECK:         %[[N:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK:         outs(%[[N]] : memref<2x4xf32>)
// CHECK:         ins(%[[N]] : memref<2x4xf32>) outs(%{{.*}} : memref<2x4xf32, strided<[4, 1], offset: 4>>)
func.func @shifted_view_of_the_destination(%c: memref<3x4xf32>) {
  %src = memref.subview %c[0, 0] [2, 4] [1, 1] : memref<3x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  %n = memref.alloc() : memref<2x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%src : memref<2x4xf32, strided<[4, 1]>>) outs(%n : memref<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %a, %one : f32
    linalg.yield %d : f32
  }
  %v = memref.subview %c[1, 0] [2, 4] [1, 1] : memref<3x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : memref<2x4xf32>) outs(%v : memref<2x4xf32, strided<[4, 1], offset: 4>>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<2x4xf32>
  func.return
}

// -----

// `p[:] = np.minimum(p, np.add.outer(p[:, 1], p[1, :]))` on an 8x8 p: the update also reads a
// column and a row of p (16 of its 64 elements, a quarter). They are copied just before it, and it
// writes p in place, reading the copies.
// CHECK-LABEL: func.func @row_and_column_of_the_destination
// CHECK:         %[[COL:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : memref<8xf32, strided<[8], offset: 1>>) outs(%[[COL]] : memref<8xf32>)
// CHECK:         %[[ROW:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%{{.*}} : memref<8xf32, strided<[1], offset: 8>>) outs(%[[ROW]] : memref<8xf32>)
// CHECK:         linalg.generic {{.*}} ins(%p, %[[COL]], %[[ROW]] : memref<8x8xf32>, memref<8xf32>, memref<8xf32>) outs(%p : memref<8x8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK:         memref.dealloc %[[ROW]]
// CHECK-NEXT:    memref.dealloc %[[COL]]
// CHECK-NOT:     memref.alloc() : memref<8x8xf32>
// CHECK:         func.return
func.func @row_and_column_of_the_destination(%p: memref<8x8xf32>) {
  %col = memref.subview %p[0, 1] [8, 1] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[8], offset: 1>>
  %row = memref.subview %p[1, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1], offset: 8>>
  %n = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %col, %row : memref<8x8xf32>, memref<8xf32, strided<[8], offset: 1>>, memref<8xf32, strided<[1], offset: 8>>) outs(%n : memref<8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %r: f32, %o: f32):
    %s = arith.addf %c, %r : f32
    %m = arith.minimumf %a, %s : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<8x8xf32>
  func.return
}

// -----

// The same update on a 3x3 p: a row and a column are 6 of its 9 elements, more than a quarter.
// The temporary and its copy stay.
// CHECK-LABEL: func.func @snapshots_too_large
// CHECK:         %[[N:.*]] = memref.alloc() : memref<3x3xf32>
// CHECK:         outs(%[[N]] : memref<3x3xf32>)
// CHECK:         ins(%[[N]] : memref<3x3xf32>) outs(%p : memref<3x3xf32>)
func.func @snapshots_too_large(%p: memref<3x3xf32>) {
  %col = memref.subview %p[0, 1] [3, 1] [1, 1] : memref<3x3xf32> to memref<3xf32, strided<[3], offset: 1>>
  %row = memref.subview %p[1, 0] [1, 3] [1, 1] : memref<3x3xf32> to memref<3xf32, strided<[1], offset: 3>>
  %n = memref.alloc() : memref<3x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %col, %row : memref<3x3xf32>, memref<3xf32, strided<[3], offset: 1>>, memref<3xf32, strided<[1], offset: 3>>) outs(%n : memref<3x3xf32>) {
  ^bb0(%a: f32, %c: f32, %r: f32, %o: f32):
    %s = arith.addf %c, %r : f32
    %m = arith.minimumf %a, %s : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%n : memref<3x3xf32>) outs(%p : memref<3x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %n : memref<3x3xf32>
  func.return
}
