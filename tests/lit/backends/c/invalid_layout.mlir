// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s

func.func @f(%a: memref<4xf32, strided<[2]>>) {
  func.return
}
// CHECK: kiln-opt: error: C backend: 'func.func': @f takes memref<4xf32, strided<[2]>>: memref arguments must have the identity (contiguous row-major) layout
