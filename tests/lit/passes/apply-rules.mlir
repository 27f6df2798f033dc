// RUN: kiln-opt %s --load %inputs/rule_natives.py -p 'apply-rules{file="%inputs/user.rules"}' | filecheck %s
// RUN: kiln-opt %s --load %inputs/rule_natives.py --rules %inputs/user.rules | filecheck %s
// RUN: kiln-opt %s --load %inputs/rule_natives.py --rules %inputs/user.rules --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: not kiln-opt %s -p apply-rules 2>&1 | filecheck %s --check-prefix=NOFILE
// NOFILE: kiln-opt: error: apply-rules needs a rule file
// RUN: not kiln-opt %s -p 'apply-rules{file=%inputs/user.rules}' 2>&1 | filecheck %s --check-prefix=UNQUOTED
// UNQUOTED: kiln-opt: error: Error parsing pass pipeline specification
// UNQUOTED-NOT: Traceback
// RUN: not kiln-opt %s --rules %inputs/user.rules 2>&1 | filecheck %s --check-prefix=NONATIVE
// NONATIVE: kiln-opt: error: {{.*}}user.rules:13:14: unknown function 'exact_log2'

// A user's rule file: x * 2 -> x + x (higher benefit than the power-of-two rule), x * 8 -> x << 3
// for signed integers (a native computes 3), two widenings -> one, constant additions folded by a
// native rewrite (100 + 100 wraps to -56 in int8). Built ops keep the location of the op they replace.
// LOC: graph.constant dense<-56> : tensor<i8> loc("model.py":7:3)
// LOC: graph.broadcast %{{.*}} : tensor<i8> -> tensor<4xi8> loc("model.py":7:3)
// CHECK-LABEL: func.func @user
// CHECK:         %[[D:.*]] = graph.add %x, %x : tensor<4xf32>
// CHECK:         %[[I2:.*]] = graph.add %i, %i : tensor<4xi32>
// CHECK:         %[[K:.*]] = graph.constant dense<3> : tensor<i32>
// CHECK-NEXT:    %[[KB:.*]] = graph.broadcast %[[K]] : tensor<i32> -> tensor<4xi32>
// CHECK-NEXT:    %[[SH:.*]] = graph.left_shift %i, %[[KB]] : tensor<4xi32>
// CHECK:         %[[W:.*]] = graph.cast %s : tensor<4xi8> -> tensor<4xi64>
// CHECK:         %[[S:.*]] = graph.constant dense<-56> : tensor<i8>
// CHECK-NEXT:    %[[SB:.*]] = graph.broadcast %[[S]] : tensor<i8> -> tensor<4xi8>
// CHECK-NEXT:    func.return %[[D]], %[[I2]], %[[SH]], %[[W]], %[[SB]]
func.func @user(%x: tensor<4xf32>, %i: tensor<4xi32>, %s: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi8>) {
  %two = graph.constant dense<2.0> : tensor<4xf32>
  %0 = graph.mul %two, %x : tensor<4xf32>
  %itwo = graph.constant dense<2> : tensor<4xi32>
  %1 = graph.mul %i, %itwo : tensor<4xi32>
  %eight0 = graph.constant dense<8> : tensor<i32>
  %eight = graph.broadcast %eight0 : tensor<i32> -> tensor<4xi32>
  %2 = graph.mul %i, %eight : tensor<4xi32>
  %3 = graph.cast %s : tensor<4xi8> -> tensor<4xi16>
  %4 = graph.cast %3 : tensor<4xi16> -> tensor<4xi64>
  %a = graph.constant dense<100> : tensor<4xi8>
  %5 = graph.add %a, %a : tensor<4xi8> loc("model.py":7:3)
  func.return %0, %1, %2, %4, %5 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi64>, tensor<4xi8>
}

// Float multiplications by 8 stay (the shift rule is for integers).
// CHECK-LABEL: func.func @kept
// CHECK:         graph.mul %x, %{{.*}} : tensor<4xf32>
func.func @kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<8.0> : tensor<4xf32>
  %0 = graph.mul %x, %c : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
