// RUN: cat %s | kiln-opt - -p graph-simplify | filecheck %s
// RUN: cat %s | kiln-opt -p graph-simplify | filecheck %s

// `-` reads standard input, as in mlir-opt (it was taken for a file name).
// CHECK-LABEL: func.func @twice_negated
// CHECK-NEXT:    func.return %x
func.func @twice_negated(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
