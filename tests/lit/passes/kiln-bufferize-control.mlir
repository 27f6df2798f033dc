// RUN: kiln-opt %s -p kiln-bufferize | filecheck %s
// scf.if / scf.while over tensors, dynamic slices, variables and prints at the buffer level.

// An if result lives in one buffer allocated before the if; each branch copies into it,
// and the branch's temporaries are freed inside the branch.
// CHECK-LABEL: func.func @cond(%x: memref<4xf32>, %p: i1, %out: memref<4xf32>) {
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    scf.if %p {
// CHECK-NEXT:      linalg.generic {{.*}} ins(%x : memref<4xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK:         } else {
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%x : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[T]] : memref<4xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK:           memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[R]] : memref<4xf32>) outs(%out : memref<4xf32>)
// CHECK:         memref.dealloc %[[R]] : memref<4xf32>
// CHECK-NEXT:    func.return

// A carried tensor lives in one buffer (here the out-parameter, the loop result being
// returned); the body's temporary is freed in the iteration that allocated it.
// CHECK-LABEL: func.func @loop(%x: memref<4xf32>, %n: i64, %out: memref<4xf32>) {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<4xf32>) outs(%out : memref<4xf32>)
// CHECK:         %{{.*}} = scf.while (%[[I:.*]] = %n) : (i64) -> i64 {
// CHECK:           scf.condition(%{{.*}}) %[[I]] : i64
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: i64):
// CHECK:           %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%out : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[B]] : memref<4xf32>) outs(%out : memref<4xf32>)
// CHECK:           memref.dealloc %[[B]] : memref<4xf32>
// CHECK-NEXT:      scf.yield %{{.*}} : i64

// Dynamic offsets: strided subviews; a returned insert_slice into an argument writes into the
// out-parameter, after a copy of the argument there (no temporary).
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %[[G:.*]] = memref.subview %x[%k, 0] [1, 3] [1, 1] : memref<5x3xf32> to memref<3xf32, strided<[1], offset: ?>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<5x3xf32>) outs(%out_1 : memref<5x3xf32>)
// CHECK:         %[[S:.*]] = memref.subview %out_1[%k, 0] [1, 3] [1, 1] : memref<5x3xf32> to memref<3xf32, strided<[1], offset: ?>>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%r : memref<3xf32>) outs(%[[S]] : memref<3xf32, strided<[1], offset: ?>>)
// CHECK-NOT:     memref.alloc

// A variable is its own buffer (not an out-parameter): a read copies it before the
// assign writes it; a variable no assign writes is read in place; prints become krt.print.
// CHECK-LABEL: func.func @state(%v: memref<3xf32>, %w: memref<3xf32>, %x: memref<3xf32>, %out: memref<3xf32>) {
// CHECK-NEXT:    %[[OLD:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%v : memref<3xf32>) outs(%[[OLD]] : memref<3xf32>)
// CHECK:         linalg.generic {{.*}} ins(%x : memref<3xf32>) outs(%v : memref<3xf32>)
// CHECK:         krt.print "{} {}\0A"(%[[OLD]], %w : memref<3xf32>, memref<3xf32>)
// CHECK-NOT:     graph.
func.func @cond(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  %c = scf.if %p -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  } else {
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    } -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  %e2 = tensor.empty() : tensor<4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.addf %a, %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
func.func @loop(%x: tensor<4xf32>, %n: i64) -> tensor<4xf32> {
  %w:2 = scf.while (%a = %x, %i = %n) : (tensor<4xf32>, i64) -> (tensor<4xf32>, i64) {
    %z = arith.constant 0 : i64
    %c = arith.cmpi sgt, %i, %z : i64
    scf.condition(%c) %a, %i : tensor<4xf32>, i64
  } do {
  ^bb0(%a: tensor<4xf32>, %i: i64):
    %one = arith.constant 1 : i64
    %j = arith.subi %i, %one : i64
    %e = tensor.empty() : tensor<4xf32>
    %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %v: f32):
      %s = arith.addf %u, %u : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    scf.yield %b, %j : tensor<4xf32>, i64
  }
  func.return %w#0 : tensor<4xf32>
}
func.func @rows(%x: tensor<5x3xf32>, %k: index, %r: tensor<3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  %g = tensor.extract_slice %x[%k, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
  %s = tensor.insert_slice %r into %x[%k, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
  func.return %g, %s : tensor<3xf32>, tensor<5x3xf32>
}
func.func @state(%v: !graph.resource<tensor<3xf32>>, %w: !graph.resource<tensor<3xf32>>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %t0 = graph.token
  %old, %t1 = graph.read %v after %t0 : !graph.resource<tensor<3xf32>> -> tensor<3xf32>, !graph.token
  %t2 = graph.assign %x to %v after %t1 : tensor<3xf32> to !graph.resource<tensor<3xf32>> -> !graph.token
  %ro, %t3 = graph.read %w after %t2 : !graph.resource<tensor<3xf32>> -> tensor<3xf32>, !graph.token
  %t4 = graph.print after %t3 "{} {}\n" (%old, %ro : tensor<3xf32>, tensor<3xf32>) -> !graph.token
  func.return %old : tensor<3xf32>
}
