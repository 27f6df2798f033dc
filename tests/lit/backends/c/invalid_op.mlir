// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s
// An unsupported op is a diagnostic naming the op and its location, not a traceback.

func.func @f(%a: f32) -> f32 {
  %t = "test.op"(%a) : (f32) -> f32 loc("model.py":12:5)
  func.return %t : f32
}
// CHECK: kiln-opt: error: C backend: 'test.op' at loc("model.py":12:5): unsupported op in the C backend
// CHECK-NOT: Traceback
