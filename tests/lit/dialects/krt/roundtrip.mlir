// RUN: %roundtrip
// krt.print round-trips; it has write effects, so dce keeps it although nothing uses it.
// RUN: kiln-opt %s -p dce,cse | filecheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @p
// CHECK-NEXT:    krt.print "x = {} and {}\0A"(%a, %b : memref<3xf32>, memref<i64>)
// CHECK-NEXT:    krt.print "hi\0A"
// CHECK-NEXT:    krt.print "hi\0A"
// KEEP-COUNT-3:  krt.print
func.func @p(%a: memref<3xf32>, %b: memref<i64>) {
  krt.print "x = {} and {}\n"(%a, %b : memref<3xf32>, memref<i64>)
  krt.print "hi\n"
  krt.print "hi\n"
  func.return
}
