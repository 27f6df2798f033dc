// RUN: kiln-opt %s -p kiln-crc-tables | filecheck %s

// NPBench's crc16 inner loop at the loop level (CRC-16/X.25, poly 0x8408, reflected): 8 steps of
// crc = (crc ^ byte) & 1 ? (crc >> 1) ^ 0x8408 : crc >> 1; byte >>= 1, with the frontend's check
// that (crc & 1) fits a uint8 (always true). It becomes crc = (crc >> 8) ^ T[(crc ^ byte) & 0xff],
// T[1] = 0x1189 (the X.25 table), the byte's and the counter's final values stored.
// CHECK:       "memref.global"() <{sym_name = "__kiln_crc_table_0", type = memref<256xi64>, initial_value = dense<"0x00000000000000008911000000000000
// CHECK-LABEL: func.func @crc_byte
// CHECK-NOT:     scf.while
// CHECK:         %[[C:.*]] = memref.load %crc[] : memref<i64>
// CHECK-NEXT:    %[[B:.*]] = memref.load %byte[] : memref<i8>
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[B]] : i8 to i64
// CHECK-NEXT:    %[[X:.*]] = arith.xori %[[C]], %[[W]] : i64
// CHECK-NEXT:    %[[FF:.*]] = arith.constant 255 : i64
// CHECK-NEXT:    %[[L:.*]] = arith.andi %[[X]], %[[FF]] : i64
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[L]] : i64 to index
// CHECK-NEXT:    %[[T:.*]] = memref.get_global @__kiln_crc_table_0 : memref<256xi64>
// CHECK-NEXT:    %[[E:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    %[[S:.*]] = arith.shrsi %[[C]], %[[E]] : i64
// CHECK-NEXT:    %[[V:.*]] = memref.load %[[T]][%[[I]]] : memref<256xi64>
// CHECK-NEXT:    %[[N:.*]] = arith.xori %[[S]], %[[V]] : i64
// CHECK-NEXT:    memref.store %[[N]], %crc[] : memref<i64>
// CHECK-DAG:     memref.store %{{.*}}, %byte[] : memref<i8>
// CHECK-DAG:     memref.store %{{.*}}, %count[] : memref<i64>
// CHECK:         func.return
func.func @crc_byte(%c0: i64, %b0: i8, %out: memref<i64>) {
  %crc = memref.alloca() : memref<i64>
  memref.store %c0, %crc[] : memref<i64>
  %byte = memref.alloca() : memref<i8>
  memref.store %b0, %byte[] : memref<i8>
  %count = memref.alloca() : memref<i64>
  %zero = arith.constant 0 : i64
  memref.store %zero, %count[] : memref<i64>
  scf.while () : () -> () {
    %t = memref.alloca() : memref<i1>
    %n = memref.load %count[] : memref<i64>
    %eight = arith.constant 8 : i64
    %more = arith.cmpi slt, %n, %eight : i64
    memref.store %more, %t[] : memref<i1>
    %go = memref.load %t[] : memref<i1>
    scf.condition(%go)
  } do {
    %cond = memref.alloca() : memref<i1>
    %ok = memref.alloca() : memref<i1>
    %c = memref.load %crc[] : memref<i64>
    %one = arith.constant 1 : i64
    %bit = arith.andi %c, %one : i64
    %max = arith.constant 255 : i64
    %fits = arith.cmpi sle, %bit, %max : i64
    %z = arith.constant 0 : i64
    %nonneg = arith.cmpi sge, %bit, %z : i64
    %both = arith.andi %nonneg, %fits : i1
    memref.store %both, %ok[] : memref<i1>
    krt.check %ok, "OverflowError: crc.py:13: Python integer out of bounds for uint8" : memref<i1>
    %b = memref.load %byte[] : memref<i8>
    %one8 = arith.constant 1 : i8
    %bb = arith.andi %b, %one8 : i8
    %c8 = arith.trunci %bit : i64 to i8
    %x = arith.xori %c8, %bb : i8
    %z8 = arith.constant 0 : i8
    %set = arith.cmpi ne, %x, %z8 : i8
    memref.store %set, %cond[] : memref<i1>
    %s = memref.load %cond[] : memref<i1>
    %next = memref.alloca() : memref<i64>
    scf.if %s {
      %c1 = memref.load %crc[] : memref<i64>
      %sh = arith.shrsi %c1, %one : i64
      %poly = arith.constant 33800 : i64
      %xp = arith.xori %sh, %poly : i64
      memref.store %xp, %next[] : memref<i64>
    } else {
      %c2 = memref.load %crc[] : memref<i64>
      %sh2 = arith.shrsi %c2, %one : i64
      memref.store %sh2, %next[] : memref<i64>
    }
    %b2 = memref.load %byte[] : memref<i8>
    %b3 = arith.shrui %b2, %one8 : i8
    memref.store %b3, %byte[] : memref<i8>
    %n2 = memref.load %count[] : memref<i64>
    %n3 = arith.addi %n2, %one : i64
    memref.store %n3, %count[] : memref<i64>
    %r = memref.load %next[] : memref<i64>
    memref.store %r, %crc[] : memref<i64>
    scf.yield
  }
  %final = memref.load %crc[] : memref<i64>
  memref.store %final, %out[] : memref<i64>
  func.return
}

// Not a CRC: the step adds the polynomial (carries are not linear over GF(2)); the loop stays.
// CHECK-LABEL: func.func @adds
// CHECK:         scf.while
// CHECK:           arith.addi %{{.*}}, %{{.*}} : i64
func.func @adds(%c0: i64, %b0: i8, %out: memref<i64>) {
  %crc = memref.alloca() : memref<i64>
  memref.store %c0, %crc[] : memref<i64>
  %byte = memref.alloca() : memref<i8>
  memref.store %b0, %byte[] : memref<i8>
  %count = memref.alloca() : memref<i64>
  %zero = arith.constant 0 : i64
  memref.store %zero, %count[] : memref<i64>
  scf.while () : () -> () {
    %n = memref.load %count[] : memref<i64>
    %eight = arith.constant 8 : i64
    %more = arith.cmpi slt, %n, %eight : i64
    scf.condition(%more)
  } do {
    %c = memref.load %crc[] : memref<i64>
    %one = arith.constant 1 : i64
    %sh = arith.shrsi %c, %one : i64
    %poly = arith.constant 33800 : i64
    %add = arith.addi %sh, %poly : i64
    memref.store %add, %crc[] : memref<i64>
    %b2 = memref.load %byte[] : memref<i8>
    %one8 = arith.constant 1 : i8
    %b3 = arith.shrui %b2, %one8 : i8
    memref.store %b3, %byte[] : memref<i8>
    %n2 = memref.load %count[] : memref<i64>
    %n3 = arith.addi %n2, %one : i64
    memref.store %n3, %count[] : memref<i64>
    scf.yield
  }
  %final = memref.load %crc[] : memref<i64>
  memref.store %final, %out[] : memref<i64>
  func.return
}

// A float state (a sum over 8 steps) is no CRC: the loop stays.
// CHECK-LABEL: func.func @float_state
// CHECK:         scf.while
func.func @float_state(%x: f64, %out: memref<f64>) {
  %acc = memref.alloca() : memref<f64>
  memref.store %x, %acc[] : memref<f64>
  %count = memref.alloca() : memref<i64>
  %zero = arith.constant 0 : i64
  memref.store %zero, %count[] : memref<i64>
  scf.while () : () -> () {
    %n = memref.load %count[] : memref<i64>
    %eight = arith.constant 8 : i64
    %more = arith.cmpi slt, %n, %eight : i64
    scf.condition(%more)
  } do {
    %a = memref.load %acc[] : memref<f64>
    %s = arith.addf %a, %a : f64
    memref.store %s, %acc[] : memref<f64>
    %n2 = memref.load %count[] : memref<i64>
    %one = arith.constant 1 : i64
    %n3 = arith.addi %n2, %one : i64
    memref.store %n3, %count[] : memref<i64>
    scf.yield
  }
  %final = memref.load %acc[] : memref<f64>
  memref.store %final, %out[] : memref<f64>
  func.return
}
