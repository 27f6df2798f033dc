// RUN: %roundtrip

// CHECK-LABEL: func.func @ops
// CHECK:       %[[M:.*]] = kvec.cmpf "ult", %{{.*}}, %{{.*}} : vector<8xf32> -> vector<8xi1>
// CHECK:       kvec.select %[[M]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
func.func @ops(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<8xf32> {
  %m = kvec.cmpf "ult", %a, %b : vector<8xf32> -> vector<8xi1>
  %r = kvec.select %m, %a, %b : vector<8xi1>, vector<8xf32>
  func.return %r : vector<8xf32>
}
