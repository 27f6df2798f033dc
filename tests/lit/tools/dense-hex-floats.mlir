// RUN: kiln-opt %s | kiln-opt --print-op-generic | kiln-opt | filecheck %s
// Hex literals in float dense attributes are bit patterns (xDSL 0.74 read them as
// integer values; kiln.xdsl_patches fixes the parser), so inf and nan survive printing.

// CHECK-LABEL: func.func @special
// CHECK-NEXT:    arith.constant dense<[0x7f800000, 0xff800000, 1.500000e+00]> : tensor<3xf32>
// CHECK-NEXT:    arith.constant dense<0xfff0000000000000> : tensor<2xf64>
func.func @special() -> tensor<3xf32> {
  %0 = arith.constant dense<[0x7F800000, 0xFF800000, 1.5]> : tensor<3xf32>
  %1 = arith.constant dense<0xFFF0000000000000> : tensor<2xf64>
  func.return %0 : tensor<3xf32>
}
