// RUN: %roundtrip

// CHECK-LABEL: func.func @ops
// CHECK:       %[[M:.*]] = kvec.cmpf "ult", %{{.*}}, %{{.*}} : vector<8xf32> -> vector<8xi1>
// CHECK:       kvec.select %[[M]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
func.func @ops(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<8xf32> {
  %m = kvec.cmpf "ult", %a, %b : vector<8xf32> -> vector<8xi1>
  %r = kvec.select %m, %a, %b : vector<8xi1>, vector<8xf32>
  func.return %r : vector<8xf32>
}

// CHECK-LABEL: func.func @exp_group
// CHECK:       %{{.*}}, %{{.*}}, %{{.*}} = kvec.exp_group %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf64>
func.func @exp_group(%a: vector<4xf64>, %b: vector<4xf64>) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>) {
  %r:3 = kvec.exp_group %a, %b, %a : vector<4xf64>
  func.return %r#0, %r#1, %r#2 : vector<4xf64>, vector<4xf64>, vector<4xf64>
}
