// RUN: kiln-opt %s -p graph-linalg-to-calls | filecheck %s
// RUN: kiln-opt %s -p graph-to-tensor,tensor-to-buffer | filecheck %s --check-prefix=BUF

// Each graph.linalg becomes a call to one private declaration per (kind, element type, shapes);
// two identical routines share a declaration.
// CHECK-DAG:   func.func private @__kiln_linalg_det_f32_3x3(tensor<3x3xf32>) -> tensor<f32>
// CHECK-DAG:   func.func private @__kiln_linalg_solve_f32_3x3_3x2(tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-DAG:   func.func private @__kiln_linalg_cholesky_f32_3x3(tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %l = func.call @__kiln_linalg_cholesky_f32_3x3(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    %l2 = func.call @__kiln_linalg_cholesky_f32_3x3(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    %x = func.call @__kiln_linalg_solve_f32_3x3_3x2(%l, %b) : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %d = func.call @__kiln_linalg_det_f32_3x3(%a) : (tensor<3x3xf32>) -> tensor<f32>
// CHECK-NOT:   graph.linalg

// kiln-bufferize gives the calls destination-passing style: results built in the out-parameters.
// BUF-LABEL: func.func @f(%a: memref<3x3xf32>, %b: memref<3x2xf32>, %out: memref<3x3xf32>, %out_1: memref<3x2xf32>, %out_2: memref<f32>, %out_3: memref<3x3xf32>)
// BUF:         func.call @__kiln_linalg_cholesky_f32_3x3(%a, %out) : (memref<3x3xf32>, memref<3x3xf32>) -> ()
// BUF:         func.call @__kiln_linalg_solve_f32_3x3_3x2(%out, %b, %out_1) : (memref<3x3xf32>, memref<3x2xf32>, memref<3x2xf32>) -> ()
// BUF:         func.call @__kiln_linalg_det_f32_3x3(%a, %out_2) : (memref<3x3xf32>, memref<f32>) -> ()
func.func @f(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>) -> (tensor<3x3xf32>, tensor<3x2xf32>, tensor<f32>, tensor<3x3xf32>) {
  %l = graph.linalg "cholesky" %a : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %l2 = graph.linalg "cholesky" %a : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %x = graph.linalg "solve" %l, %b : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %d = graph.linalg "det" %a : (tensor<3x3xf32>) -> tensor<f32>
  func.return %l, %x, %d, %l2 : tensor<3x3xf32>, tensor<3x2xf32>, tensor<f32>, tensor<3x3xf32>
}
