// RUN: kiln-opt %s -p kiln-group-exp | filecheck %s
// RUN: kiln-opt %s -p kiln-group-exp -t 'c{isa=avx2}' | filecheck %s --check-prefix=AVX2
// RUN: kiln-opt %s -p kiln-group-exp -t 'c{isa=avx512}' | filecheck %s --check-prefix=AVX512

// The unrolled copies of an exp, side by side, become one group. With AVX2, one test of all
// the inputs (each of two registers) picks the fast paths or the general ones.
// CHECK-LABEL: func.func @unrolled
// CHECK-NEXT:    %ea, %eb, %ec, %ed = kvec.exp_group %a, %b, %c, %d : vector<16xf32>
// CHECK-NEXT:    %s = arith.addf %ea, %eb : vector<16xf32>
// CHECK-NEXT:    %t = arith.addf %ec, %ed : vector<16xf32>
// AVX2-LABEL: {{^}}kiln_v16f32 unrolled(
// AVX2:         if (!_mm256_movemask_ps({{.*}}(kiln_vexp_far_f32(a.p[0]){{.*}}kiln_vexp_far_f32(d.p[1]){{.*}} {
// AVX2-NEXT:      ea.p[0] = kiln_vexp_near_f32(a.p[0]);
// AVX2-COUNT-7:   = kiln_vexp_near_f32(
// AVX2-NEXT:    } else {
// AVX2-NEXT:      ea.p[0] = kiln_vexp_f32(a.p[0]);
// AVX2-COUNT-7:   = kiln_vexp_f32(
// AVX2-NEXT:    }
// AVX-512 scales by 2^n in one instruction and has no fast path: one exp per operand.
// AVX512-LABEL: {{^}}kiln_v16f32 unrolled(
// AVX512-NOT:     if (
// AVX512-COUNT-4: = kiln_vexp_f32({{a|b|c|d}});
// AVX512-NOT:     if (
func.func @unrolled(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>, %d: vector<16xf32>) -> vector<16xf32> {
  %ea = math.exp %a : vector<16xf32>
  %eb = math.exp %b : vector<16xf32>
  %ec = math.exp %c : vector<16xf32>
  %ed = math.exp %d : vector<16xf32>
  %s = arith.addf %ea, %eb : vector<16xf32>
  %t = arith.addf %ec, %ed : vector<16xf32>
  %r = arith.addf %s, %t : vector<16xf32>
  func.return %r : vector<16xf32>
}

// An exp of an exp of the run ends it and starts the next one. Not grouped: exps apart, a
// lone one, exps of different types, scalar exps.
// CHECK-LABEL: func.func @apart
// CHECK-NEXT:    %ea, %eb = kvec.exp_group %a, %b : vector<16xf32>
// CHECK-NEXT:    %ec, %ed, %ee = kvec.exp_group %ea, %b, %a : vector<16xf32>
// CHECK-NEXT:    %m = arith.mulf %ee, %a : vector<16xf32>
// CHECK-NEXT:    %ef = math.exp %m : vector<16xf32>
// CHECK-NEXT:    %wide = math.exp %w : vector<32xf32>
// CHECK-NEXT:    %eg = math.exp %b : vector<16xf32>
// CHECK-NEXT:    %x1 = math.exp %x : f32
// CHECK-NEXT:    %x2 = math.exp %x : f32
func.func @apart(%a: vector<16xf32>, %b: vector<16xf32>, %w: vector<32xf32>, %x: f32) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<32xf32>, vector<16xf32>, f32, f32) {
  %ea = math.exp %a : vector<16xf32>
  %eb = math.exp %b : vector<16xf32>
  %ec = math.exp %ea : vector<16xf32>
  %ed = math.exp %b : vector<16xf32>
  %ee = math.exp %a : vector<16xf32>
  %m = arith.mulf %ee, %a : vector<16xf32>
  %ef = math.exp %m : vector<16xf32>
  %wide = math.exp %w : vector<32xf32>
  %eg = math.exp %b : vector<16xf32>
  %x1 = math.exp %x : f32
  %x2 = math.exp %x : f32
  func.return %eb, %ec, %ed, %ef, %m, %wide, %eg, %x1, %x2 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<32xf32>, vector<16xf32>, f32, f32
}
