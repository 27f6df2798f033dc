// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @bad_predicate(%a: vector<8xf32>) {
  // expected-error@+1 {{unknown cmpf predicate 'less'}}
  %m = kvec.cmpf "less", %a, %a : vector<8xf32> -> vector<8xi1>
  func.return
}

// -----

func.func @bad_mask(%a: vector<8xf32>, %m: vector<4xi1>) {
  // expected-error@+1 {{condition must be a vector of i1 shaped like the result, got vector<4xi1>}}
  %r = kvec.select %m, %a, %a : vector<4xi1>, vector<8xf32>
  func.return
}
