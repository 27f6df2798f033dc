// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s

func.func @f(%a: f16) -> f16 {
  %t = arith.addf %a, %a : f16 loc("model.py":3:1)
  func.return %t : f16
}
// CHECK: kiln-opt: error: C backend: 'func.func': @f: unsupported type f16 in the C backend
