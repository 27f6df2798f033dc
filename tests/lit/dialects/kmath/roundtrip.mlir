// RUN: %roundtrip

// CHECK-LABEL: func.func @fmod
// CHECK-NEXT:    %{{.*}} = kmath.fmod %x, %y : f32
// CHECK-NEXT:    %{{.*}} = kmath.fmod %a, %b : f64
func.func @fmod(%x: f32, %y: f32, %a: f64, %b: f64) -> f32 {
  %0 = kmath.fmod %x, %y : f32
  %1 = kmath.fmod %a, %b : f64
  func.return %0 : f32
}

// -----

// CHECK-LABEL: func.func @hypot
// CHECK-NEXT:    %{{.*}} = kmath.hypot %x, %y : f32
// CHECK-NEXT:    %{{.*}} = kmath.hypot %a, %b : f64
func.func @hypot(%x: f32, %y: f32, %a: f64, %b: f64) -> f32 {
  %0 = kmath.hypot %x, %y : f32
  %1 = kmath.hypot %a, %b : f64
  func.return %0 : f32
}
