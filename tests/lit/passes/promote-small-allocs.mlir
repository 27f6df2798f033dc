// RUN: kiln-opt %s -p promote-small-allocs | filecheck %s
// RUN: kiln-opt %s -p promote-small-allocs -t c | filecheck %s --check-prefix=C

// A small static temporary freed in its own block moves to the stack; a large one,
// a dynamic one and one freed elsewhere stay on the heap.
// CHECK-LABEL: func.func @temps
// CHECK:         %small = memref.alloca() {alignment = 64 : i64} : memref<10x40xf32>
// CHECK:         %large = memref.alloc() : memref<128x128xf32>
// CHECK:         %dyn = memref.alloc(%n) : memref<?xf32>
// CHECK:         scf.for
// CHECK:           %inner = memref.alloca() {alignment = 64 : i64} : memref<8xf64>
// CHECK-NOT:       memref.dealloc %inner
// CHECK:         %outer = memref.alloc() : memref<4xf32>
// CHECK-NOT:     memref.dealloc %small
// CHECK:         memref.dealloc %large
// CHECK:         memref.dealloc %dyn

// C-LABEL: void temps(
// C:         float small[400] __attribute__((aligned(64)));
// C:         double inner[8] __attribute__((aligned(64)));
func.func @temps(%x: memref<10x40xf32>, %n: index) {
  %small = memref.alloc() : memref<10x40xf32>
  %large = memref.alloc() : memref<128x128xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  "memref.copy"(%x, %small) : (memref<10x40xf32>, memref<10x40xf32>) -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %inner = memref.alloc() : memref<8xf64>
    memref.dealloc %inner : memref<8xf64>
  }
  %outer = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.dealloc %outer : memref<4xf32>
  }
  memref.dealloc %small : memref<10x40xf32>
  memref.dealloc %large : memref<128x128xf32>
  memref.dealloc %dyn : memref<?xf32>
  func.return
}
