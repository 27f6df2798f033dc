// RUN: kiln-opt %s -p graph-inline-calls | filecheck %s
// The CUDA pipeline inlines every call on buffers (its stages lower one function): the callee's
// body runs on the call's buffers, its output parameter the caller's buffer.
// CHECK-LABEL: func.func @outer(%x: memref<4xf32>, %out: memref<4xf32>) {
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<4xf32>) outs(%out : memref<4xf32>)
// CHECK:         memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT:    func.return
// CHECK-NOT:   func.func private
func.func @outer(%x: memref<4xf32>, %out: memref<4xf32>) {
  %0 = memref.alloc() : memref<4xf32>
  func.call @square_plus(%x, %0) : (memref<4xf32>, memref<4xf32>) -> ()
  func.call @square_plus(%0, %out) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.dealloc %0 : memref<4xf32>
  func.return
}
func.func private @square_plus(%y: memref<4xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y : memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.mulf %a, %a : f32
    %d = arith.addf %c, %a : f32
    linalg.yield %d : f32
  }
  func.return
}
