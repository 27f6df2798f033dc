// RUN: kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda | filecheck %s
// RUN: %if nvcc %{ kiln-opt %s -p buffer-to-parallel,parallel-to-gpu -t cuda > %t.cu && nvcc -c -Xcompiler -fPIC -arch=sm_80 %t.cu -o %t.o %}

// NumPy's elementwise math in a kernel: the C backend's scalar rules, so CUDA's device math
// library in its float variants for f32 (tanf, hypotf for kmath.hypot, rintf for roundeven,
// fmaxf for the NaN-ignoring maxnumf), and shifts by a clamped count done unsigned.
// CHECK:       extern "C" __global__ void ufuncs_kernel0(
// CHECK:         float [[T:.*]] = tanf(
// CHECK-NEXT:    float [[H:.*]] = hypotf([[T]], [[Y:.*]]);
// CHECK-NEXT:    float [[R:.*]] = rintf([[H]]);
// CHECK-NEXT:    float [[M:.*]] = fmaxf([[R]], [[Y]]);
// CHECK-NEXT:    float {{.*}} = copysignf([[M]], {{.*}});
// CHECK:       extern "C" __global__ void ufuncs_kernel1(
// CHECK:         int32_t [[K:.*]] = (uint32_t){{.*}} < (uint32_t)31 ? {{.*}} : 31;
// CHECK-NEXT:    int32_t {{.*}} = (int32_t)((uint32_t){{.*}} << (uint32_t)[[K]]);
func.func @ufuncs(%x: memref<64xf32>, %y: memref<64xf32>, %n: memref<64xi32>, %out: memref<64xf32>, %sh: memref<64xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %0 = math.tan %a : f32
    %1 = kmath.hypot %0, %b : f32
    %2 = math.roundeven %1 : f32
    %3 = arith.maxnumf %2, %b : f32
    %4 = math.copysign %3, %a : f32
    linalg.yield %4 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%n : memref<64xi32>) outs(%sh : memref<64xi32>) {
  ^bb0(%a: i32, %c: i32):
    %last = arith.constant 31 : i32
    %k = arith.minui %a, %last : i32
    %s = arith.shli %a, %k : i32
    linalg.yield %s : i32
  }
  func.return
}
