// RUN: %roundtrip

// CHECK-LABEL: func.func @fmod
// CHECK-NEXT:    %{{.*}} = kmath.fmod %x, %y : f32
// CHECK-NEXT:    %{{.*}} = kmath.fmod %a, %b : f64
func.func @fmod(%x: f32, %y: f32, %a: f64, %b: f64) -> f32 {
  %0 = kmath.fmod %x, %y : f32
  %1 = kmath.fmod %a, %b : f64
  func.return %0 : f32
}
