"""The C runtime of ``krt.check`` (backends/c/check_ops.py): the failed check's message, kept
per thread until the caller takes it with ``kiln_take_error()``."""

#: the C of the check state, emitted once into a translation unit that has a check
CHECK_RUNTIME = """static __thread const char *kiln_failed;
__attribute__((visibility("default"))) const char *kiln_take_error(void);
const char *kiln_take_error(void) {
  const char *message = kiln_failed;
  kiln_failed = 0;
  return message;
}
"""

