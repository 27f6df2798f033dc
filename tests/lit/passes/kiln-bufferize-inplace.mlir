// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s
// Writes that are stores: an insert_slice into a loop's carried value (dead after it) writes the
// carried buffer, and an scf.if whose branches update that value keeps its result there.

// CHECK-LABEL: func.func @write_in_loop(%x: memref<8xf64>, %v: memref<f64>, %n: index, %out: memref<8xf64>)
// CHECK:         scf.while
// CHECK:         } do {
// CHECK-NOT:       memref.alloc() : memref<8xf64>
// CHECK:           scf.if
// CHECK:             %[[A:.*]] = memref.subview %out[%{{.*}}] [1] [1]
// CHECK:             linalg.generic {{.*}} ins(%v : memref<f64>) outs(%[[A]] : {{.*}})
// CHECK:           } else {
// CHECK-NOT:       memref.alloc() : memref<8xf64>
// CHECK:         scf.yield
func.func @write_in_loop(%x: tensor<8xf64>, %v: tensor<f64>, %n: index) -> tensor<8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r, %k = scf.while (%a = %x, %i = %c0) : (tensor<8xf64>, index) -> (tensor<8xf64>, index) {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %a, %i : tensor<8xf64>, index
  } do {
  ^bb0(%a: tensor<8xf64>, %i: index):
    %odd = arith.remui %i, %c1 : index
    %c = arith.cmpi eq, %odd, %c0 : index
    %b = scf.if %c -> (tensor<8xf64>) {
      %w = tensor.insert_slice %v into %a[%i] [1] [1] : tensor<f64> into tensor<8xf64>
      scf.yield %w : tensor<8xf64>
    } else {
      scf.yield %a : tensor<8xf64>
    }
    %next = arith.addi %i, %c1 : index
    scf.yield %b, %next : tensor<8xf64>, index
  }
  func.return %r : tensor<8xf64>
}

// A scatter into a value from before the if (x[idx] = v under a tensor condition) updates it:
// the if keeps its result in that buffer, and the scatter writes it in place.
// CHECK-LABEL: func.func @scatter_if
// CHECK:         %[[X:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[X]] : memref<8xf32>)
// CHECK-NEXT:    scf.if %p {
// CHECK-NEXT:      kalgo.scatter {kind = "set"} ins(%u, %i : memref<2xf32>, memref<2xi64>) outs(%[[X]] : memref<8xf32>)
// CHECK-NEXT:    } else {
// CHECK-NEXT:    }
// CHECK:         memref.load %[[X]]
func.func @scatter_if(%p: i1, %u: tensor<2xf32>, %i: tensor<2xi64>) -> f32 {
  %e = tensor.empty() : tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %x = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %c = scf.if %p -> (tensor<8xf32>) {
    %s = kalgo.scatter {kind = "set"} ins(%u, %i : tensor<2xf32>, tensor<2xi64>) outs(%x : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  } else {
    scf.yield %x : tensor<8xf32>
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %c[%c0] : tensor<8xf32>
  func.return %r : f32
}

// Two results made from one value, one updated and one not, the first dead after the if (the
// reverse if of a gradient yields one array of zeros for two adjoints): one result at most lives
// in that value's buffer, the other gets its own, filled from the value before it is overwritten.
// CHECK-LABEL: func.func @two_results_one_origin
// CHECK:         %[[X:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[X]] : memref<8xf32>)
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    scf.if %p {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[X]] : memref<8xf32>) outs(%[[T]] : memref<8xf32>)
// CHECK:           kalgo.scatter {kind = "set"} ins(%u, %i : memref<2xf32>, memref<2xi64>) outs(%[[T]] : memref<8xf32>)
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[X]] : memref<8xf32>) outs(%[[S]] : memref<8xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[T]] : memref<8xf32>) outs(%[[X]] : memref<8xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[S]] : memref<8xf32>) outs(%[[B]] : memref<8xf32>)
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} outs(%[[B]] : memref<8xf32>)
// CHECK:         }
// CHECK:         memref.load %[[B]]
func.func @two_results_one_origin(%p: i1, %u: tensor<2xf32>, %i: tensor<2xi64>) -> f32 {
  %e = tensor.empty() : tensor<8xf32>
  %z = arith.constant 0.0 : f32
  %x = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a, %b = scf.if %p -> (tensor<8xf32>, tensor<8xf32>) {
    %s = kalgo.scatter {kind = "set"} ins(%u, %i : tensor<2xf32>, tensor<2xi64>) outs(%x : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %s, %x : tensor<8xf32>, tensor<8xf32>
  } else {
    scf.yield %x, %x : tensor<8xf32>, tensor<8xf32>
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %b[%c0] : tensor<8xf32>
  func.return %r : f32
}
