// RUN: kiln-opt %s -p kiln-if-to-select | filecheck %s
// RUN: kiln-opt %s -p kiln-if-to-select -t c > %t.c
// RUN: filecheck %s --check-prefix=C < %t.c
// RUN: cc -c -O2 -Wall -Werror -fwrapv %t.c -o %t.o

// Collatz: in a while loop, an if whose branches are a few pure integer ops on one-element
// locals runs both branches, then a branchless select sets the local they write. The
// condition, read back from the local it was stored in, is the stored cmpi (that local goes),
// so that the C backend tests (x & 1) == 0 in place.
// CHECK-LABEL: func.func @collatz_steps
// CHECK:         scf.while
// CHECK:         } do {
// CHECK:           %[[X:.*]] = memref.load %v[] : memref<i64>
// CHECK-NEXT:      %low = arith.andi %[[X]], %c1 : i64
// CHECK-NEXT:      %even = arith.cmpi eq, %low, %c0 : i64
// CHECK-NOT:       %flag
// CHECK-NEXT:      %next = memref.alloca() : memref<i64>
// CHECK-NEXT:      %a = memref.load %v[] : memref<i64>
// CHECK-NEXT:      %h = arith.shrsi %a, %c1 : i64
// CHECK-NEXT:      %b = memref.load %v[] : memref<i64>
// CHECK-NEXT:      %m = arith.muli %b, %c3 : i64
// CHECK-NEXT:      %p = arith.addi %m, %c1 : i64
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %even, %h, %p {kiln.branchless} : i64
// CHECK-NEXT:      memref.store %[[SEL]], %next[] : memref<i64>
// CHECK-NOT:       scf.if
// CHECK:           scf.yield
// C-LABEL: {{^}}void collatz_steps(
// C:           (void)even;
// C-NEXT:      int64_t [[SEL:.*]] = (int64_t)kiln_select_mask((int64_t)x, (int64_t)1, p, h);
// C-NEXT:      next = [[SEL]];
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

// Two locals written (one of them read back after its store: the load reads the stored
// value), a local of the branch's own, and a result: one select each. The condition is a
// plain i1 here (tested as a bool).
// CHECK-LABEL: func.func @two_locals
// CHECK:         } do {
// CHECK-NEXT:      %i = memref.load %iv[] : memref<i64>
// CHECK-NEXT:      %cond = memref.load %c[] : memref<i1>
// CHECK-NEXT:      %tmp = memref.alloca() : memref<i64>
// CHECK-NEXT:      %ta = arith.addi %i, %one : i64
// CHECK-NEXT:      %sq = arith.muli %ta, %ta : i64
// CHECK-NEXT:      memref.store %sq, %tmp[] : memref<i64>
// CHECK-NEXT:      %sq2 = memref.load %tmp[] : memref<i64>
// CHECK-NEXT:      %tb = arith.addi %sq2, %one : i64
// CHECK-NEXT:      %ea = arith.subi %i, %one : i64
// CHECK-NEXT:      %[[A:.*]] = arith.select %cond, %ta, %ea {kiln.branchless} : i64
// CHECK-NEXT:      memref.store %[[A]], %a[] : memref<i64>
// CHECK-NEXT:      %[[B:.*]] = arith.select %cond, %tb, %ea {kiln.branchless} : i64
// CHECK-NEXT:      memref.store %[[B]], %b[] : memref<i64>
// CHECK-NEXT:      %r = arith.select %cond, %ta, %one {kiln.branchless} : i64
// CHECK-NOT:       scf.if
// C-LABEL: {{^}}void two_locals(
// C:           int64_t [[A:.*]] = (int64_t)kiln_select_mask((int64_t)cond, 1, ta, ea);
// C-NEXT:      a = [[A]];
// C-NEXT:      int64_t [[B:.*]] = (int64_t)kiln_select_mask((int64_t)cond, 1, tb, ea);
// C-NEXT:      b = [[B]];
// C-NEXT:      int64_t r = (int64_t)kiln_select_mask((int64_t)cond, 1, ta, 1);
func.func @two_locals(%n: i64, %c: memref<i1>, %out: memref<i64>) {
  %one = arith.constant 1 : i64
  %a = memref.alloca() : memref<i64>
  %b = memref.alloca() : memref<i64>
  %iv = memref.alloca() : memref<i64>
  memref.store %n, %iv[] : memref<i64>
  memref.store %n, %a[] : memref<i64>
  memref.store %n, %b[] : memref<i64>
  scf.while () : () -> () {
    %i0 = memref.load %iv[] : memref<i64>
    %more = arith.cmpi sgt, %i0, %one : i64
    scf.condition(%more)
  } do {
    %i = memref.load %iv[] : memref<i64>
    %cond = memref.load %c[] : memref<i1>
    %r = scf.if %cond -> (i64) {
      %tmp = memref.alloca() : memref<i64>
      %ta = arith.addi %i, %one : i64
      memref.store %ta, %a[] : memref<i64>
      %ra = memref.load %a[] : memref<i64>
      %sq = arith.muli %ra, %ra : i64
      memref.store %sq, %tmp[] : memref<i64>
      %sq2 = memref.load %tmp[] : memref<i64>
      %tb = arith.addi %sq2, %one : i64
      memref.store %tb, %b[] : memref<i64>
      scf.yield %ta : i64
    } else {
      %ea = arith.subi %i, %one : i64
      memref.store %ea, %b[] : memref<i64>
      memref.store %ea, %a[] : memref<i64>
      scf.yield %one : i64
    }
    %i1 = arith.subi %i, %r : i64
    memref.store %i1, %iv[] : memref<i64>
    scf.yield
  }
  %av = memref.load %a[] : memref<i64>
  %bv = memref.load %b[] : memref<i64>
  %s = arith.addi %av, %bv : i64
  memref.store %s, %out[] : memref<i64>
  func.return
}

// Kept as branches, each for one reason: a division (it could trap in the branch not
// taken); a store to an array; a local only one branch writes; a local read before the
// branch stores it; a float stored; a shift by a variable amount; more than MAX_OPS (16)
// ops; and an if in a counted loop (gcc if-converts and vectorizes those itself).
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     kiln.branchless
// CHECK-COUNT-8: scf.if
// CHECK-NOT:     kiln.branchless
// CHECK:         func.return
// C-LABEL: {{^}}void kept(
// C-NOT:         kiln_select_mask
// C:           }
func.func @kept(%n: memref<i64>, %d: memref<i64>, %arr: memref<4xi64>, %out: memref<i64>, %sh: i64, %f: f64, %fo: memref<f64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i4 = arith.constant 4 : index
  %v = memref.alloca() : memref<i64>
  %n0 = memref.load %n[] : memref<i64>
  memref.store %n0, %v[] : memref<i64>
  %fl = memref.alloca() : memref<f64>
  memref.store %f, %fl[] : memref<f64>
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
    scf.if %odd {
      memref.store %x, %next[] : memref<i64>
    } else {
    }
    scf.if %odd {
      %old = memref.load %next[] : memref<i64>
      memref.store %old, %next[] : memref<i64>
    } else {
      memref.store %x, %next[] : memref<i64>
    }
    scf.if %odd {
      memref.store %f, %fl[] : memref<f64>
    } else {
      memref.store %f, %fl[] : memref<f64>
    }
    scf.if %odd {
      %s = arith.shli %x, %sh : i64
      memref.store %s, %next[] : memref<i64>
    } else {
      memref.store %x, %next[] : memref<i64>
    }
    scf.if %odd {
      %a1 = arith.addi %x, %c1 : i64
      %a2 = arith.addi %a1, %c1 : i64
      %a3 = arith.addi %a2, %c1 : i64
      %a4 = arith.addi %a3, %c1 : i64
      %a5 = arith.addi %a4, %c1 : i64
      %a6 = arith.addi %a5, %c1 : i64
      %a7 = arith.addi %a6, %c1 : i64
      %a8 = arith.addi %a7, %c1 : i64
      %a9 = arith.addi %a8, %c1 : i64
      memref.store %a9, %next[] : memref<i64>
    } else {
      %b1 = arith.subi %x, %c1 : i64
      %b2 = arith.subi %b1, %c1 : i64
      %b3 = arith.subi %b2, %c1 : i64
      %b4 = arith.subi %b3, %c1 : i64
      %b5 = arith.subi %b4, %c1 : i64
      %b6 = arith.subi %b5, %c1 : i64
      %b7 = arith.subi %b6, %c1 : i64
      memref.store %b7, %next[] : memref<i64>
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
  %flv = memref.load %fl[] : memref<f64>
  memref.store %flv, %fo[] : memref<f64>
  func.return
}
