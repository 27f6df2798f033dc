"""The C runtime of ``krt.check`` (backends/c/check_ops.py): the failed check's message, kept
per thread until the caller takes it with ``kiln_take_error()``. A source cut into parts
(backends/c/parts.py) defines it in the main part; the other parts refer to it."""

from kiln.backends.c.parts import END, MAIN, guard

#: the C of the check state, emitted once into a translation unit that has a check
CHECK_RUNTIME = f"""#if !defined(KILN_SPLIT)
static __thread const char *kiln_failed;
#elif defined(KILN_PART_{MAIN})
__thread const char *kiln_failed;
#else
extern __thread const char *kiln_failed;
#endif
{guard(MAIN)}
__attribute__((visibility("default"))) const char *kiln_take_error(void);
const char *kiln_take_error(void) {{
  const char *message = kiln_failed;
  kiln_failed = 0;
  return message;
}}
{END}
"""

