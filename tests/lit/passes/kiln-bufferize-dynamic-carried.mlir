// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s
// Carried values and if results of dynamic shape: the op carries a memref, and each region
// hands over the buffer of the value it passes (a whole buffer it owns as it is, anything else
// as a fresh copy), freeing the carried buffer it received and did not pass on.

// A slice of the carried buffer is copied into a fresh buffer, then the old one is freed; the
// argument enters as a copy; the loop result is freed after its last use.
// CHECK-LABEL: func.func @shrink(%x: memref<?xf32>, %n: i64) -> f32 {
// CHECK:         %[[IN:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<?xf32>) outs(%[[IN]] : memref<?xf32>)
// CHECK:         %[[R:.*]], %{{.*}} = scf.while (%[[A:.*]] = %[[IN]], %{{.*}} = %n) : (memref<?xf32>, i64) -> (memref<?xf32>, i64) {
// CHECK:           scf.condition(%{{.*}}) %[[A]], %{{.*}} : memref<?xf32>, i64
// CHECK:         ^{{.*}}(%[[B:.*]]: memref<?xf32>, %{{.*}}: i64):
// CHECK:           %[[S:.*]] = memref.subview %[[B]][1] [%{{.*}}] [1]
// CHECK:           %[[NEW:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[S]] : {{.*}}) outs(%[[NEW]] : memref<?xf32>)
// CHECK:           memref.dealloc %[[B]] : memref<?xf32>
// CHECK-NEXT:      scf.yield %[[NEW]], %{{.*}} : memref<?xf32>, i64
// CHECK:         memref.load %[[R]]
// CHECK-NEXT:    memref.dealloc %[[R]] : memref<?xf32>

// A temporary of the body is handed over as it is: no copy, and not freed in the body.
// CHECK-LABEL: func.func @grow
// CHECK:         ^{{.*}}(%[[B:.*]]: memref<?xf32>, %{{.*}}: i64):
// CHECK:           %[[T:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:           linalg.fill {{.*}} outs(%[[T]] : memref<?xf32>)
// CHECK-NEXT:      memref.dealloc %[[B]] : memref<?xf32>
// CHECK-NEXT:      scf.yield %[[T]], %{{.*}} : memref<?xf32>, i64

// Written in place, the carried buffer is passed on: no copy, no free in the body.
// CHECK-LABEL: func.func @write
// CHECK:         ^{{.*}}(%[[B:.*]]: memref<?xf32>, %{{.*}}: i64):
// CHECK:           %[[S:.*]] = memref.subview %[[B]][0] [1] [1]
// CHECK-NEXT:      linalg.generic {{.*}} ins(%v : memref<1xf32>) outs(%[[S]] : {{.*}})
// CHECK-NOT:       memref.dealloc
// CHECK:           scf.yield %[[B]], %{{.*}} : memref<?xf32>, i64

// An if of dynamic shape: the slice of an argument is copied, the branch's own buffer handed over.
// CHECK-LABEL: func.func @either
// CHECK:         %[[R:.*]] = scf.if %p -> (memref<?xf32>) {
// CHECK:           %[[C:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:      linalg.generic {{.*}} outs(%[[C]] : memref<?xf32>)
// CHECK:           scf.yield %[[C]] : memref<?xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc(%k) : memref<?xf32>
// CHECK:           linalg.fill {{.*}} outs(%[[T]] : memref<?xf32>)
// CHECK-NEXT:      scf.yield %[[T]] : memref<?xf32>
// CHECK:         memref.load %[[R]]
// CHECK-NEXT:    memref.dealloc %[[R]] : memref<?xf32>
// A temporary two loops start from: the first takes a copy, since the second reads it after (it
// was handed over, freed by the first iteration and read by the second loop: kiln.fuzz
// 20660-9517); the second, its last reader, takes it as it is.
// CHECK-LABEL: func.func @twice
// CHECK:         %[[T:.*]] = memref.alloc(%k) : memref<?xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[T]] : memref<?xf32>)
// CHECK:         %[[C:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[T]] : memref<?xf32>) outs(%[[C]] : memref<?xf32>)
// CHECK:         scf.while (%{{.*}} = %[[C]], %{{.*}} = %n)
// CHECK:         scf.while (%{{.*}} = %[[T]], %{{.*}} = %n)
func.func @shrink(%x: tensor<?xf32>, %n: i64) -> f32 {
  %w:2 = scf.while (%a = %x, %i = %n) : (tensor<?xf32>, i64) -> (tensor<?xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<?xf32>, i64
  } do {
  ^bb0(%a: tensor<?xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %b = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.yield %b, %j : tensor<?xf32>, i64
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %w#0[%c0] : tensor<?xf32>
  func.return %r : f32
}
func.func @grow(%x: tensor<?xf32>, %n: i64) -> f32 {
  %w:2 = scf.while (%a = %x, %i = %n) : (tensor<?xf32>, i64) -> (tensor<?xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<?xf32>, i64
  } do {
  ^bb0(%a: tensor<?xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.addi %d, %c1 : index
    %e = tensor.empty(%m) : tensor<?xf32>
    %f = arith.constant 2.0 : f32
    %b = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %b, %j : tensor<?xf32>, i64
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %w#0[%c0] : tensor<?xf32>
  func.return %r : f32
}
func.func @write(%x: tensor<?xf32>, %v: tensor<1xf32>, %n: i64) -> f32 {
  %w:2 = scf.while (%a = %x, %i = %n) : (tensor<?xf32>, i64) -> (tensor<?xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<?xf32>, i64
  } do {
  ^bb0(%a: tensor<?xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %b = tensor.insert_slice %v into %a[0] [1] [1] : tensor<1xf32> into tensor<?xf32>
    scf.yield %b, %j : tensor<?xf32>, i64
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %w#0[%c0] : tensor<?xf32>
  func.return %r : f32
}
func.func @either(%x: tensor<8xf32>, %p: i1, %k: index) -> f32 {
  %c = scf.if %p -> (tensor<?xf32>) {
    %s = tensor.extract_slice %x[0] [%k] [1] : tensor<8xf32> to tensor<?xf32>
    scf.yield %s : tensor<?xf32>
  } else {
    %e = tensor.empty(%k) : tensor<?xf32>
    %f = arith.constant 1.0 : f32
    %y = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %c[%c0] : tensor<?xf32>
  func.return %r : f32
}
func.func @twice(%k: index, %n: i64) -> f32 {
  %e = tensor.empty(%k) : tensor<?xf32>
  %f = arith.constant 1.0 : f32
  %t = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %w:2 = scf.while (%a = %t, %i = %n) : (tensor<?xf32>, i64) -> (tensor<?xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<?xf32>, i64
  } do {
  ^bb0(%a: tensor<?xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %b = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.yield %b, %j : tensor<?xf32>, i64
  }
  %v:2 = scf.while (%a = %t, %i = %n) : (tensor<?xf32>, i64) -> (tensor<?xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<?xf32>, i64
  } do {
  ^bb0(%a: tensor<?xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %m = arith.subi %d, %c1 : index
    %b = tensor.extract_slice %a[1] [%m] [1] : tensor<?xf32> to tensor<?xf32>
    scf.yield %b, %j : tensor<?xf32>, i64
  }
  %c0 = arith.constant 0 : index
  %r = tensor.extract %w#0[%c0] : tensor<?xf32>
  %s = tensor.extract %v#0[%c0] : tensor<?xf32>
  %sum = arith.addf %r, %s : f32
  func.return %sum : f32
}
