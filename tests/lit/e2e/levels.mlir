// Every level round-trips through text and each lowering runs alone:
// graph -> tensor -> buffer -> loops -> C, each step a separate kiln-opt run on
// the previous one's generic-form output, compiled at the end.

// RUN: kiln-opt %s -p graph-to-tensor --print-op-generic > %t.tensor.mlir
// RUN: kiln-opt %t.tensor.mlir | kiln-opt | filecheck %s --check-prefix=TENSOR
// RUN: kiln-opt %t.tensor.mlir -p tensor-to-buffer --print-op-generic > %t.buffer.mlir
// RUN: kiln-opt %t.buffer.mlir | filecheck %s --check-prefix=BUFFER
// RUN: kiln-opt %t.buffer.mlir -p buffer-to-loops --print-op-generic > %t.loops.mlir
// RUN: kiln-opt %t.loops.mlir | kiln-opt | filecheck %s --check-prefix=LOOPS
// RUN: kiln-opt %t.loops.mlir -t c > %t.staged.c
// RUN: kiln-opt %s -p graph-to-c -t c > %t.direct.c
// RUN: diff %t.staged.c %t.direct.c
// RUN: cc -c -O2 -Wall -Werror %t.direct.c -o %t.o

func.func @layer(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<4x2xf32> {
  %mm = graph.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %bb = graph.broadcast %b : tensor<2xf32> -> tensor<4x2xf32>
  %z = graph.add %mm, %bb : tensor<4x2xf32>
  %r = graph.relu %z : tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}

// TENSOR-LABEL: func.func @layer
// TENSOR-NOT:     graph.
// TENSOR:         linalg.fill
// TENSOR:         linalg.generic
// TENSOR:         arith.maximumf
// TENSOR:         func.return %{{.*}} : tensor<4x2xf32>

// BUFFER-LABEL: func.func @layer(%x: memref<4x3xf32>, %w: memref<3x2xf32>, %b: memref<2xf32>, %out: memref<4x2xf32>)
// BUFFER-NOT:     tensor<
// BUFFER:         linalg.fill
// BUFFER:         func.return

// LOOPS-LABEL: func.func @layer
// LOOPS-NOT:     linalg.
// LOOPS:         scf.for
// LOOPS:         {{(memref|vector)\.(masked)?load}}
// LOOPS:         {{(memref|vector)\.(masked)?store}}
