// --help names kiln's pipelines and passes in groups (it listed ~150 names, kiln's and xDSL's
// mixed, in one paragraph); --list-pipelines and --list-passes list them, one per line.

// RUN: kiln-opt --help | filecheck %s --check-prefix=HELP
// HELP: -t TARGET, --target TARGET
// HELP-NEXT: output: mlir, c, cuda
// HELP: kiln pipelines:
// HELP-NEXT: graph-to-tensor, tensor-to-buffer,
// HELP: kiln passes:
// HELP-NEXT: apply-rules, convert-graph-to-linalg,
// HELP-NOT: convert-arith-to-riscv
// HELP: xDSL's {{[0-9]+}} passes: --list-passes

// RUN: kiln-opt --list-pipelines | filecheck %s --check-prefix=PIPELINES
// PIPELINES-LABEL: {{^}}graph-to-c{{$}}
// PIPELINES-NEXT: tensor: graph-inline-calls{keep-ops=64}, graph-order-effects, canonicalize,
// PIPELINES: buffer: kiln-bufferize,
// PIPELINES: loops: kiln-linalg-calls-to-kernel,
// PIPELINES-LABEL: {{^}}graph-to-cuda{{$}}
// PIPELINES-NOT: apply-pdl

// RUN: kiln-opt --list-passes --load %inputs/user_ext.py | filecheck %s --check-prefix=PASSES
// PASSES: kiln pipelines:
// PASSES-NEXT: {{^  }}graph-to-tensor{{$}}
// PASSES: kiln passes:
// PASSES-NEXT: {{^  }}apply-rules{{$}}
// PASSES: passes loaded with --load:
// PASSES-NEXT: {{^  }}my-tag{{$}}
// PASSES: xDSL passes:
// PASSES: {{^  }}canonicalize{{$}}
// PASSES-NOT: kiln-bufferize
