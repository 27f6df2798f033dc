// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s

func.func @f(%a: bf16) -> bf16 {
  %t = arith.addf %a, %a : bf16 loc("model.py":3:1)
  func.return %t : bf16
}
// CHECK: kiln-opt: error: C backend: 'func.func': @f: unsupported type bf16 in the C backend
