"""The C names a traced function may not take: C keywords, what kiln's includes declare, kiln's
helpers. Apart from the emitter, so that tracing names a function without importing it (and
the xDSL dialects it needs)."""

from __future__ import annotations

from kiln.backends.c.helpers import HELPERS

C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while bool true false main NAN INFINITY abort free malloc
    aligned_alloc memcpy memset""".split()
)


_MATH_H = (
    "acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 exp10 frexp ilogb "
    "ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow pow10 sqrt erf erfc lgamma "
    "tgamma gamma ceil floor nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo "
    "drem copysign nan nextafter nexttoward fdim fmax fmin fma significand finite j0 j1 jn y0 y1 yn sincos"
).split()
#: what the headers kiln's C includes declare (and stdio's, for debugging prints), and every libm
#: name the emitter calls (``signbitf``: scalar_ops.LIBM_NAMES, a subset: tests/test_c_backend.py):
#: a function of the user's named like one gets another C name
LIBC_NAMES = frozenset(
    [*_MATH_H, *(n + "f" for n in _MATH_H), *(n + "l" for n in _MATH_H)]
    + """fpclassify isfinite isinf isnan isnormal signbit isgreater isgreaterequal isless islessequal
    islessgreater isunordered atof atoi atol atoll strtod strtof strtold strtol strtoll strtoul strtoull
    rand srand random srandom drand48 erand48 lrand48 nrand48 mrand48 jrand48 srand48 seed48 aligned_alloc
    calloc free malloc realloc posix_memalign abort atexit at_quick_exit exit _Exit quick_exit getenv setenv
    unsetenv putenv system bsearch qsort abs labs llabs div ldiv lldiv mblen mbtowc wctomb mbstowcs wcstombs
    realpath mkstemp memcpy memmove memchr memcmp memset memccpy strcat strncat strchr strcmp strncmp
    strcoll strcpy strncpy strcspn strerror strlen strnlen strpbrk strrchr strspn strstr strtok strxfrm
    strdup strndup printf fprintf sprintf snprintf putchar puts fflush main signbitf""".split()
)


def is_reserved_c_name(name: str) -> bool:
    """Whether a function named ``name`` would clash with C keywords, libc/libm or kiln's helpers."""
    return (name in C_KEYWORDS or name in LIBC_NAMES or name in HELPERS
            or name.startswith("kiln_"))  # kiln's own names (the trampoline's kiln_slots, kiln_take_error, ...)
