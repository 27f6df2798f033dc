// RUN: not kiln-opt %s -p graph-to-cuda -t cuda 2>&1 | filecheck %s

// np.linalg routines have a C loop nest only: the CUDA backend refuses them by name
// (it must not hand device pointers to the host routine).
// CHECK: kernel.linalg 'inv' (np.linalg.inv) is not supported by the CUDA backend; use target='c'
func.func @f(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %l = graph.linalg "inv" %a : (tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %l : tensor<3x3xf32>
}
