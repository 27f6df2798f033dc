// RUN: not kiln-opt %s -p graph-partition 2>&1 | filecheck %s

// A construct that cannot be split into chunks is refused, naming it and its location.
// CHECK: refused.py:3:5: a matrix product of vectors or stacks of matrices (@, np.dot) is not supported on Dask arrays
func.func @matvec(%a: tensor<4x4xf64> {kiln.chunks = ["x", "*"]}, %v: tensor<4xf64>) -> tensor<4xf64> {
  %0 = graph.matmul %a, %v : (tensor<4x4xf64>, tensor<4xf64>) -> tensor<4xf64> loc("refused.py":3:5)
  func.return %0 : tensor<4xf64>
}
