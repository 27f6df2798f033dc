// RUN: not kiln-opt %s -t c --split-input-file 2>&1 | filecheck %s

func.func @f(%a: f32) -> f32 {
  %r = math.cosh %a : f32
  %t = "test.op"(%r) : (f32) -> f32
  func.return %t : f32
}
// CHECK: kiln-opt: error: C backend: 'test.op' at loc("{{.*}}invalid.mlir":5:{{[0-9]+}}): unsupported op in the C backend
// CHECK-NOT: Traceback
