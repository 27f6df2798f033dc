// What the token chain guarantees against canonicalize, cse and dce, and through the
// whole pipeline down to the loop level.
// RUN: kiln-opt %s -p graph-order-effects,canonicalize,cse,dce | filecheck %s
// The scalar ISA (4 lanes) keeps these 3-element copies scalar loops on any host.
// RUN: env KILN_ISA=scalar kiln-opt %s -p graph-to-loops | filecheck %s --check-prefix=LOOPS
//
// * two identical prints both print, in order;
// * an assign whose token nothing uses still happens;
// * a read is never moved across a write (the read before the assign sees the old value);
// * a read whose value is unused is kept at the graph level while a later effect
//   depends on its token (TF may drop such reads; kiln keeps them ordered, and the
//   buffer level copies it and canonicalize may then drop the dead copy: never a write).

// CHECK-LABEL: func.func @effects
// CHECK-NEXT:    %[[T0:.*]] = graph.token
// CHECK-NEXT:    %[[T1:.*]] = graph.print after %[[T0]] "x = {}\0A"(%x : tensor<3xf32>) -> !graph.token
// CHECK-NEXT:    %[[T2:.*]] = graph.print after %[[T1]] "x = {}\0A"(%x : tensor<3xf32>) -> !graph.token
// CHECK-NEXT:    %[[OLD:.*]], %[[T3:.*]] = graph.read %v after %[[T2]]
// CHECK-NEXT:    %[[T4:.*]] = graph.assign %x to %v after %[[T3]]
// CHECK-NEXT:    %{{.*}}, %[[T5:.*]] = graph.read %v after %[[T4]]
// CHECK-NEXT:    %{{.*}} = graph.assign %y to %v after %[[T5]]
// CHECK-NEXT:    func.return %[[OLD]]

// LOOPS-LABEL: func.func @effects
// LOOPS-SAME:    (%x: memref<3xf32>, %y: memref<3xf32>, %v: memref<3xf32>, %out: memref<3xf32>)
// LOOPS:         krt.print "x = {}\0A"(%x : memref<3xf32>)
// LOOPS-NEXT:    krt.print "x = {}\0A"(%x : memref<3xf32>)
// The old value goes to the result before the assign (kiln-elide-copies: its snapshot is only
// read, and nothing writes %v before that read).
// LOOPS:         %[[V:.*]] = memref.load %v[%{{.*}}]
// LOOPS-NEXT:    memref.store %[[V]], %out[%{{.*}}]
// LOOPS:         %[[X:.*]] = memref.load %x[%{{.*}}]
// LOOPS-NEXT:    memref.store %[[X]], %v[%{{.*}}]
// LOOPS:         %[[Y:.*]] = memref.load %y[%{{.*}}]
// LOOPS-NEXT:    memref.store %[[Y]], %v[%{{.*}}]
// LOOPS-NOT:     memref.store %{{.*}}, %out
func.func @effects(%x: tensor<3xf32>, %y: tensor<3xf32>, %v: !graph.resource<tensor<3xf32>>) -> tensor<3xf32> {
  graph.print "x = {}\n" (%x : tensor<3xf32>)
  graph.print "x = {}\n" (%x : tensor<3xf32>)
  %old = graph.read %v : !graph.resource<tensor<3xf32>> -> tensor<3xf32>
  graph.assign %x to %v : tensor<3xf32> to !graph.resource<tensor<3xf32>>
  %unused = graph.read %v : !graph.resource<tensor<3xf32>> -> tensor<3xf32>
  graph.assign %y to %v : tensor<3xf32> to !graph.resource<tensor<3xf32>>
  func.return %old : tensor<3xf32>
}
