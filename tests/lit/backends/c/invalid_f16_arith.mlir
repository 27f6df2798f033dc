// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s

// f16 is stored and converted only: its arithmetic must come in f32 (C's _Float16 would keep
// excess precision across ops; convert-graph-to-linalg extends, computes and truncates).
func.func @g(%a: f16) -> f16 {
  %t = arith.addf %a, %a : f16 loc("model.py":3:1)
  func.return %t : f16
}
// CHECK: kiln-opt: error: {{.*}}'arith.addf' on f16: f16 arithmetic is computed in f32 and rounded
