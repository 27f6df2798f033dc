// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c > %t.c && cc -c -Wall -Werror %t.c -o %t.o

// Helpers come first, only those used.
// CHECK:      static inline int64_t kiln_ipowi_int64_t(int64_t b, int64_t e) {
// CHECK:      static inline double kiln_minimum(double a, double b) {

func.func @f32ops(%x: f32, %y: f32, %n: i32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.log %0 : f32
  %2 = math.log2 %1 : f32
  %3 = math.log10 %2 : f32
  %4 = math.log1p %3 : f32
  %5 = math.expm1 %4 : f32
  %6 = math.sqrt %5 : f32
  %7 = math.rsqrt %6 : f32
  %8 = math.tanh %7 : f32
  %9 = math.sin %8 : f32
  %10 = math.cos %9 : f32
  %11 = math.absf %10 : f32
  %12 = math.powf %11, %y : f32
  %13 = math.fpowi %12, %n : f32, i32
  %14 = math.floor %13 : f32
  %15 = math.ceil %14 : f32
  %16 = math.round %15 : f32
  %17 = math.trunc %16 : f32
  %18 = math.fma %17, %x, %y : f32
  %19 = math.copysign %18, %y : f32
  %20 = math.erf %19 : f32
  %21 = math.atan2 %20, %x : f32
  func.return %21 : f32
}
// CHECK-LABEL: float f32ops(float x, float y, int32_t n) {
// CHECK-NEXT:   float v = expf(x);
// CHECK-NEXT:   float v_1 = logf(v);
// CHECK-NEXT:   float v_2 = log2f(v_1);
// CHECK-NEXT:   float v_3 = log10f(v_2);
// CHECK-NEXT:   float v_4 = log1pf(v_3);
// CHECK-NEXT:   float v_5 = expm1f(v_4);
// CHECK-NEXT:   float v_6 = sqrtf(v_5);
// CHECK-NEXT:   float v_7 = 1.0f / sqrtf(v_6);
// CHECK-NEXT:   float v_8 = tanhf(v_7);
// CHECK-NEXT:   float v_9 = sinf(v_8);
// CHECK-NEXT:   float v_10 = cosf(v_9);
// CHECK-NEXT:   float v_11 = fabsf(v_10);
// CHECK-NEXT:   float v_12 = powf(v_11, y);
// CHECK-NEXT:   float v_13 = powf(v_12, (float)n);
// CHECK-NEXT:   float v_14 = floorf(v_13);
// CHECK-NEXT:   float v_15 = ceilf(v_14);
// CHECK-NEXT:   float v_16 = roundf(v_15);
// CHECK-NEXT:   float v_17 = truncf(v_16);
// CHECK-NEXT:   float v_18 = fmaf(v_17, x, y);
// CHECK-NEXT:   float v_19 = copysignf(v_18, y);
// CHECK-NEXT:   float v_20 = erff(v_19);
// CHECK-NEXT:   float v_21 = atan2f(v_20, x);

func.func @f64ops(%x: f64, %i: i64, %j: i64) -> f64 {
  %0 = math.exp %x : f64
  %1 = math.tanh %0 : f64
  %2 = math.ipowi %i, %j : i64
  %3 = math.absi %2 : i64
  %4 = arith.sitofp %3 : i64 to f64
  %5 = arith.maxnumf %1, %4 : f64
  %6 = arith.minimumf %5, %x : f64
  func.return %6 : f64
}
// CHECK-LABEL: double f64ops(double x, int64_t i, int64_t j) {
// CHECK-NEXT:   double v = exp(x);
// CHECK-NEXT:   double v_1 = tanh(v);
// CHECK-NEXT:   int64_t v_2 = kiln_ipowi_int64_t(i, j);
// CHECK-NEXT:   int64_t v_3 = v_2 < 0 ? -v_2 : v_2;
// CHECK-NEXT:   double v_4 = (double)v_3;
// CHECK-NEXT:   double v_5 = fmax(v_1, v_4);
// CHECK-NEXT:   double v_6 = kiln_minimum(v_5, x);

// kmath.fmod is C's fmod (xDSL 0.74 has no arith.remf).
// CHECK-LABEL: float fmod_f32(float x, float y) {
// CHECK-NEXT:    float [[V:.*]] = fmodf(x, y);
// CHECK-LABEL: double fmod_f64(double x, double y) {
// CHECK-NEXT:    double [[W:.*]] = fmod(x, y);
func.func @fmod_f32(%x: f32, %y: f32) -> f32 {
  %0 = kmath.fmod %x, %y : f32
  func.return %0 : f32
}
func.func @fmod_f64(%x: f64, %y: f64) -> f64 {
  %0 = kmath.fmod %x, %y : f64
  func.return %0 : f64
}

// The functions of NumPy's elementwise math (kiln.passes._scalar_math): libm's f32 variants
// on f32 (NumPy's float32 loops call them too), roundeven as rint (halves to even in the
// default rounding mode), kmath.hypot as hypot, maxnumf/minnumf as the NaN-ignoring fmax/fmin.
// CHECK-LABEL: float ufunc_f32(float x, float y) {
// CHECK-NEXT:    float v = tanf(x);
// CHECK-NEXT:    float v_1 = asinf(v);
// CHECK-NEXT:    float v_2 = acosf(v_1);
// CHECK-NEXT:    float v_3 = atanf(v_2);
// CHECK-NEXT:    float v_4 = sinhf(v_3);
// CHECK-NEXT:    float v_5 = coshf(v_4);
// CHECK-NEXT:    float v_6 = asinhf(v_5);
// CHECK-NEXT:    float v_7 = acoshf(v_6);
// CHECK-NEXT:    float v_8 = atanhf(v_7);
// CHECK-NEXT:    float v_9 = exp2f(v_8);
// CHECK-NEXT:    float v_10 = cbrtf(v_9);
// CHECK-NEXT:    float v_11 = rintf(v_10);
// CHECK-NEXT:    float v_12 = hypotf(v_11, y);
// CHECK-NEXT:    float v_13 = fmaxf(v_12, y);
// CHECK-NEXT:    float v_14 = fminf(v_13, y);
func.func @ufunc_f32(%x: f32, %y: f32) -> f32 {
  %0 = math.tan %x : f32
  %1 = math.asin %0 : f32
  %2 = math.acos %1 : f32
  %3 = math.atan %2 : f32
  %4 = math.sinh %3 : f32
  %5 = math.cosh %4 : f32
  %6 = math.asinh %5 : f32
  %7 = math.acosh %6 : f32
  %8 = math.atanh %7 : f32
  %9 = math.exp2 %8 : f32
  %10 = math.cbrt %9 : f32
  %11 = math.roundeven %10 : f32
  %12 = kmath.hypot %11, %y : f32
  %13 = arith.maxnumf %12, %y : f32
  %14 = arith.minnumf %13, %y : f32
  func.return %14 : f32
}
// CHECK-LABEL: double ufunc_f64(double x, double y) {
// CHECK-NEXT:    double v = tan(x);
// CHECK-NEXT:    double v_1 = rint(v);
// CHECK-NEXT:    double v_2 = hypot(v_1, y);
// CHECK-NEXT:    double v_3 = cbrt(v_2);
func.func @ufunc_f64(%x: f64, %y: f64) -> f64 {
  %0 = math.tan %x : f64
  %1 = math.roundeven %0 : f64
  %2 = kmath.hypot %1, %y : f64
  %3 = math.cbrt %2 : f64
  func.return %3 : f64
}

// A shift as left_shift/right_shift lower it: the count clamped by an unsigned min, the left
// shift done unsigned (no signed overflow), the right shift arithmetic.
// CHECK-LABEL: int32_t shifts(int32_t x, int32_t n) {
// CHECK-NEXT:    int32_t c = (uint32_t)n < (uint32_t)31 ? n : 31;
// CHECK-NEXT:    int32_t s = (int32_t)((uint32_t)x << (uint32_t)c);
// CHECK-NEXT:    int32_t r = s >> c;
func.func @shifts(%x: i32, %n: i32) -> i32 {
  %last = arith.constant 31 : i32
  %c = arith.minui %n, %last : i32
  %s = arith.shli %x, %c : i32
  %r = arith.shrsi %s, %c : i32
  func.return %r : i32
}
