// RUN: not kiln-opt %s -t c 2>&1 | filecheck %s --check-prefix=RET
// RUN: not kiln-opt %s -t c -p test-add-loc 2>&1 | filecheck %s --check-prefix=RET
