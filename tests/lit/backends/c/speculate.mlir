// RUN: kiln-opt %s -t c > %t.c
// RUN: filecheck %s < %t.c
// RUN: cc -c -O2 -Wall -Werror -fwrapv %t.c -o %t.o

// If-conversion (backends/c/speculate.py): in a while loop, an if whose branches are a few
// pure integer ops on one-element locals runs both branches on copies of the locals they
// write, then selects with a test and a conditional move. (v & 1) == 0 is tested in place.
// CHECK:       static inline int64_t kiln_select_mask(int64_t x, int64_t m, int64_t a, int64_t b) {
// CHECK:         __asm__("testq %2, %1\n\tcmovneq %3, %0"
// CHECK-LABEL: {{^}}void collatz_steps(
// CHECK:         while (1) {
// CHECK:           int64_t x = v;
// CHECK:           int64_t next;
// CHECK-NEXT:      (void)cond;
// CHECK-NEXT:      int64_t next_then;
// CHECK-NEXT:      {
// CHECK:             int64_t h = a >> 1;
// CHECK-NEXT:        next_then = h;
// CHECK-NEXT:      }
// CHECK-NEXT:      int64_t next_else;
// CHECK-NEXT:      {
// CHECK:             int64_t p = m + 1;
// CHECK-NEXT:        next_else = p;
// CHECK-NEXT:      }
// CHECK-NEXT:      next = (int64_t)kiln_select_mask((int64_t)x, (int64_t)1, next_else, next_then);
// CHECK-NOT:       if (
// CHECK:         }
func.func @collatz_steps(%n: memref<i64>, %out: memref<i64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c3 = arith.constant 3 : i64
  memref.store %c0, %out[] : memref<i64>
  %v = memref.alloca() : memref<i64>
  %n0 = memref.load %n[] : memref<i64>
  memref.store %n0, %v[] : memref<i64>
  scf.while () : () -> () {
    %cur = memref.load %v[] : memref<i64>
    %more = arith.cmpi sgt, %cur, %c1 : i64
    scf.condition(%more)
  } do {
    %flag = memref.alloca() : memref<i1>
    %x = memref.load %v[] : memref<i64>
    %low = arith.andi %x, %c1 : i64
    %even = arith.cmpi eq, %low, %c0 : i64
    memref.store %even, %flag[] : memref<i1>
    %cond = memref.load %flag[] : memref<i1>
    %next = memref.alloca() : memref<i64>
    scf.if %cond {
      %a = memref.load %v[] : memref<i64>
      %h = arith.shrsi %a, %c1 : i64
      memref.store %h, %next[] : memref<i64>
    } else {
      %b = memref.load %v[] : memref<i64>
      %m = arith.muli %b, %c3 : i64
      %p = arith.addi %m, %c1 : i64
      memref.store %p, %next[] : memref<i64>
    }
    %s = memref.load %out[] : memref<i64>
    %s1 = arith.addi %s, %c1 : i64
    memref.store %s1, %out[] : memref<i64>
    %nv = memref.load %next[] : memref<i64>
    memref.store %nv, %v[] : memref<i64>
    scf.yield
  }
  func.return
}

// Kept as branches: a division (it could trap in the branch not taken), and a store to
// an array; and in a counted loop (gcc if-converts and vectorizes those itself).
// CHECK-LABEL: {{^}}void kept(
// CHECK-NOT:     kiln_select_mask
// CHECK:         if (
// CHECK:         if (
// CHECK:         if (
// CHECK-NOT:     kiln_select_mask
// CHECK:       }
func.func @kept(%n: memref<i64>, %d: memref<i64>, %arr: memref<4xi64>, %out: memref<i64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i4 = arith.constant 4 : index
  %v = memref.alloca() : memref<i64>
  %n0 = memref.load %n[] : memref<i64>
  memref.store %n0, %v[] : memref<i64>
  scf.while () : () -> () {
    %cur = memref.load %v[] : memref<i64>
    %more = arith.cmpi sgt, %cur, %c1 : i64
    scf.condition(%more)
  } do {
    %x = memref.load %v[] : memref<i64>
    %low = arith.andi %x, %c1 : i64
    %odd = arith.cmpi ne, %low, %c0 : i64
    %next = memref.alloca() : memref<i64>
    scf.if %odd {
      %dv = memref.load %d[] : memref<i64>
      %q = arith.divsi %x, %dv : i64
      memref.store %q, %next[] : memref<i64>
    } else {
      %h = arith.shrsi %x, %c1 : i64
      memref.store %h, %next[] : memref<i64>
    }
    scf.if %odd {
      memref.store %x, %arr[%i0] : memref<4xi64>
    }
    %nv = memref.load %next[] : memref<i64>
    %nv1 = arith.subi %nv, %c1 : i64
    memref.store %nv1, %v[] : memref<i64>
    scf.yield
  }
  scf.for %i = %i0 to %i4 step %i1 {
    %e = memref.load %arr[%i] : memref<4xi64>
    %low = arith.andi %e, %c1 : i64
    %odd = arith.cmpi ne, %low, %c0 : i64
    %t = memref.alloca() : memref<i64>
    scf.if %odd {
      %a = arith.addi %e, %c1 : i64
      memref.store %a, %t[] : memref<i64>
    } else {
      memref.store %e, %t[] : memref<i64>
    }
    %tv = memref.load %t[] : memref<i64>
    memref.store %tv, %arr[%i] : memref<4xi64>
  }
  func.return
}
