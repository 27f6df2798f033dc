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

// -----

func.func @exp_group_mixed(%a: vector<8xf32>, %b: vector<4xf32>) {
  // expected-error@+1 {{attribute vector<4xf32> expected from variable 'T', but got vector<8xf32>}}
  %r:2 = "kvec.exp_group"(%a, %b) : (vector<8xf32>, vector<4xf32>) -> (vector<8xf32>, vector<4xf32>)
  func.return
}

// -----

func.func @exp_group_ints(%a: vector<8xi32>) {
  // expected-error@+1 {{vector<8xi32>}}
  %r = kvec.exp_group %a : vector<8xi32>
  func.return
}

// -----

func.func @exp_group_counts(%a: vector<8xf32>) {
  // expected-error@+1 {{needs one result per operand, and an operand; got 1 -> 2}}
  %r:2 = "kvec.exp_group"(%a) : (vector<8xf32>) -> (vector<8xf32>, vector<8xf32>)
  func.return
}
