// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s

func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
  func.return %a : memref<4xf32>
}
// CHECK: kiln-opt: error: C backend: 'func.func': @f returns a memref; kiln's ABI passes results as trailing memref out-parameters (destination passing)
