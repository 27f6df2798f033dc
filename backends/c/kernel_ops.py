"""C for the ``kernel`` dialect: calls into the GEMM runtime, blocked by rows, run with OpenMP.

``kernel.conv2d`` is the same GEMM with A packed from the NHWC input (implicit im2col).
``kernel.matvec`` / ``kernel.vecmat`` call ``runtime/kiln_gemv.h`` (no packing: A is read
once, along its contiguous axis), the output split in the runtime's steps, which the threads claim as they come.

The runtime (``runtime/kiln_gemm.h``) is pasted into the translation unit as a
helper, once per element type, so the C compiles alone; the toolchain links kiln's builds of it to
the runtime built once per machine instead (backends/c/shared_runtime.py). Its vector width and register block
follow the ISA gcc compiles for (``-march=native``): AVX-512 64-byte vectors,
AVX/AVX2 32-byte 6x16 (f32) blocks, 16-byte vectors otherwise.
Threads: ``KILN_NUM_THREADS``; by default all cores (OpenMP's default) less those other
runnable tasks hold at the call (``/proc/loadavg``), so that no thread waits for a busy core, and
only while the product's own measurements show the team faster than one thread (a static
``kiln_site`` per product, runtime/kiln_threads.h); B's column panels and the row blocks of one matmul are claimed by
the threads as they come (``schedule(dynamic, 1)``: a late thread leaves its share to the others); small products stay on one thread, and
tiny static ones (an LSTM step) skip packing altogether (``small``).
The pragmas sit under ``#ifdef _OPENMP``: without ``-fopenmp`` the code is sequential C.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.ir import Block, SSAValue

from kiln.backends.c import shared_runtime
from kiln.backends.c.dispatch import handles
from kiln.backends.c.helpers import HELPERS
from kiln.backends.c.index_expr import IndexExpr, product
from kiln.dialects import kernel

if TYPE_CHECKING:
    from kiln.backends.c.emitter import FunctionEmitter, MemrefDesc

_NUM_THREADS = (Path(__file__).parent / "runtime" / "kiln_threads.h").read_text()

#: below this many multiply-adds a matmul runs on the calling thread
PARALLEL_MIN_WORK = 1 << 21
#: ... and a matrix-vector product below this many: it streams A (8 bytes a multiply-add in
#: float64), so 2^21 of them (16 MiB, ~0.4 ms) left np.cov-style loops of shrinking x @ A[:, i:]
#: on one thread for most of their iterations; a parallel region of a warm team costs microseconds
GEMV_PARALLEL_MIN_WORK = 1 << 16
#: at most this many rows (static): the unpacked skinny path (each element of B used at most this often)
SKINNY_MAX_M = 8
#: at most this many multiply-adds (static sizes): the unpacked small-matrix path
SMALL_MAX_WORK = 1 << 15
#: ... or this many when N is whole 16-column panels: reading B's rows in place beat packing up to
#: here (one Zen 4 core, C harness, -march=native and haswell alike: batched 8 x 64x32 @ 32x64
#: float64 44.8 -> 54.4 GFLOP/s, 32 x 128x64 @ 64x128 47.2 -> 53.5, 500x64 @ 64x64 48.8 -> 57.0),
#: where a ragged last panel, read element by element, lost (1000x64 @ 64x20: 33 -> 26). Threaded
#: products (PARALLEL_MIN_WORK) are packed.
SMALL_PANEL_MAX_WORK = 1 << 20


HELPERS.update(
    {
        **shared_runtime.DEFINITIONS,
        "kiln_num_threads": _NUM_THREADS,
    }
)


@handles(kernel.MatmulOp)
def _matmul(em: FunctionEmitter, op: kernel.MatmulOp) -> None:
    a, b, c = em.memref(op.a), em.memref(op.b), em.memref(op.c)
    prefix = em.use_helper("kiln_gemm_f32" if c.elem == "float" else "kiln_gemm_f64")
    m, k = a.sizes
    n = b.sizes[1]
    if _is_small(m, n, k, op.symmetric is not None) and b.strides[1] == 1:
        em.open("{")
        em.line(
            f"{prefix}_small({m}, {n}, {k}, {a.ptr}, {a.strides[0]}, {a.strides[1]}, {b.ptr}, {b.strides[0]}, "
            f"{c.ptr}, {c.strides[0]});"
        )
        _epilogue(em, op.epilogue.block, "0", str(m))
        em.close()
        return
    if isinstance(m, int) and m <= SKINNY_MAX_M and b.strides[1] == 1:
        _skinny(em, op.epilogue.block, prefix, (m, n, k), a, b, c)
        return
    pack_b = f"{prefix}_pack_b({k}, {n}, {b.ptr}, {b.strides[0]}, {b.strides[1]}, {{bp}}, {{p0}}, {{p1}});"
    if op.symmetric is not None:
        _row_blocks(
            em, op.epilogue.block, prefix, c.elem, (m, n, k), pack_b,
            f"{prefix}_syrk_rows({{begin}}, {{end}}, {n}, {k}, {a.ptr}, {a.strides[0]}, {a.strides[1]}, "
            f"{{bp}}, {{ap}}, {c.ptr}, {c.strides[0]});",
            mirror=f"{prefix}_mirror({{begin}}, {{end}}, {n}, {c.ptr}, {c.strides[0]});",
        )
        return
    _row_blocks(
        em,
        op.epilogue.block,
        prefix,
        c.elem,
        (m, n, k),
        pack_b,
        f"{prefix}_rows({{begin}}, {{end}}, {n}, {k}, {a.ptr}, {a.strides[0]}, {a.strides[1]}, "
        f"0, {{bp}}, {{ap}}, {c.ptr}, {c.strides[0]});",
    )


@handles(kernel.MatvecOp)
def _matvec(em: FunctionEmitter, op: kernel.MatvecOp) -> None:
    a = em.memref(op.a)
    _gemv_call(em, a.sizes[0], a.sizes[1], a.ptr, a.strides[0], a.strides[1], op.x, op.y)


@handles(kernel.VecmatOp)
def _vecmat(em: FunctionEmitter, op: kernel.VecmatOp) -> None:
    """``x @ A`` is ``A``'s transpose times ``x``: the matvec with A's strides swapped."""
    a = em.memref(op.a)
    _gemv_call(em, a.sizes[1], a.sizes[0], a.ptr, a.strides[1], a.strides[0], op.x, op.y)


def _gemv_call(em: FunctionEmitter, m: IndexExpr, k: IndexExpr, a: str, rs: IndexExpr, cs: IndexExpr,
               x_value: SSAValue, y_value: SSAValue) -> None:
    """y[0:m] = A @ x for A's element (i, k) at ``a[i*rs + k*cs]``: one call below
    ``GEMV_PARALLEL_MIN_WORK`` multiply-adds, else the output in the runtime's steps among threads."""
    x, y = em.memref(x_value), em.memref(y_value)
    prefix = em.use_helper("kiln_gemv_f32" if y.elem == "float" else "kiln_gemv_f64")
    args = f"{k}, {a}, {rs}, {cs}, {x.ptr}, {x.strides[0]}, {y.ptr}, {y.strides[0]}"
    if all(isinstance(d, int) for d in (m, k)) and m * k < GEMV_PARALLEL_MIN_WORK:  # type: ignore[operator]
        em.line(f"{prefix}_part(0, {m}, {args});")
        return
    step, begin, nt = em.fresh("gemv_step"), em.fresh("gemv_begin"), em.fresh("gemv_threads")
    em.open("{")
    done = _team(em, nt, m, k, min_work=GEMV_PARALLEL_MIN_WORK)
    em.line(f"const int64_t {step} = {prefix}_step({m}, {rs}, {cs}, {nt});")
    em.line("#ifdef _OPENMP")
    em.line(f"#pragma omp parallel for num_threads({nt}) if ({nt} > 1) schedule(dynamic, 1)")
    em.line("#endif")
    em.open(f"for (int64_t {begin} = 0; {begin} < {m}; {begin} += {step}) {{")
    em.line(f"{prefix}_part({begin}, {begin} + {step} < {m} ? {begin} + {step} : {m}, {args});")
    em.close()
    em.line(done)
    em.close()


@handles(kernel.Conv2DOp)
def _conv2d(em: FunctionEmitter, op: kernel.Conv2DOp) -> None:
    """The GEMM over the implicit im2col matrix: rows (n, oh, ow), k (kh, kw, ci), B = filters."""
    x, f, y = em.memref(op.input), em.memref(op.filter), em.memref(op.output)
    prefix = em.use_helper("kiln_gemm_f32" if y.elem == "float" else "kiln_gemm_f64")
    n_img, h, w, c = x.sizes
    kh, kw, _, co = f.sizes
    _, oh, ow, _ = y.sizes
    sh, sw = op.strides.get_values()
    m, k = product([n_img, oh, ow]), product([kh, kw, c])
    cv = em.fresh("conv")
    em.open("{")
    em.line(f"const {prefix}_conv {cv} = {{{h}, {w}, {c}, {oh}, {ow}, {kw}, {sh}, {sw}}};")
    _row_blocks(
        em,
        op.epilogue.block,
        prefix,
        y.elem,
        (m, co, k),
        f"{prefix}_pack_b({k}, {co}, {f.ptr}, {co}, 1, {{bp}}, {{p0}}, {{p1}});",
        f"{prefix}_rows({{begin}}, {{end}}, {co}, {k}, {x.ptr}, 0, 0, &{cv}, {{bp}}, {{ap}}, {y.ptr}, {co});",
    )
    em.close()


def _skinny(em: FunctionEmitter, epilogue: Block, prefix: str, mnk: tuple[int, IndexExpr, IndexExpr],
            a: MemrefDesc, b: MemrefDesc, c: MemrefDesc) -> None:
    """A product of at most ``SKINNY_MAX_M`` rows: B streamed unpacked, its column blocks shared among
    threads, then the epilogue on all rows."""
    m, n, k = mnk
    step, j = em.fresh("skinny_step"), em.fresh("skinny_j")
    em.open("{")
    em.line(f"const int64_t {step} = {prefix}_skinny_step({m});")
    threaded = _threaded(mnk)
    if threaded:
        em.use_helper("kiln_num_threads")
        em.line("#ifdef _OPENMP")
        em.line(f"#pragma omp parallel for num_threads(kiln_num_threads()) if ((double)({m}) * ({n}) * ({k}) >= {PARALLEL_MIN_WORK}) "
                "schedule(dynamic, 1)")
        em.line("#endif")
    em.open(f"for (int64_t {j} = 0; {j} < {n}; {j} += {step}) {{")
    em.line(
        f"{prefix}_skinny({m}, {j}, {j} + {step} < {n} ? {j} + {step} : {n}, {k}, {a.ptr}, {a.strides[0]}, "
        f"{a.strides[1]}, {b.ptr}, {b.strides[0]}, {c.ptr}, {c.strides[0]});"
    )
    em.close()
    _epilogue(em, epilogue, "0", str(m))
    em.close()


def _team(em: FunctionEmitter, nt: str, *work: IndexExpr, min_work: int = PARALLEL_MIN_WORK) -> str:
    """Declare ``nt``, the threads of a product of ``work`` multiply-adds: from ``min_work`` on,
    what this product's own measurements choose (``kiln_site_threads``, runtime/kiln_threads.h:
    the team while it is faster than one thread), else the calling thread alone. Returns the C
    statement to put after the product, which records its time."""
    em.use_helper("kiln_num_threads")
    site, big, start = em.fresh("product_site"), em.fresh("product_big"), em.fresh("product_start")
    product_text = " * ".join(f"({w})" for w in work)
    em.line(f"static kiln_site {site};")
    em.line(f"const int {big} = (double){product_text} >= {min_work};")
    em.line(f"const int {nt} = {big} ? kiln_site_threads(&{site}) : 1;")
    em.line(f"const int64_t {start} = {big} ? kiln_site_clock() : 0;")
    return f"if ({big}) kiln_site_done(&{site}, (int64_t){product_text}, {nt}, {start});"


def _threaded(mnk: tuple[IndexExpr, IndexExpr, IndexExpr]) -> bool:
    """Whether a product needs an OpenMP region at all: dynamic sizes, or static ones with at least
    ``PARALLEL_MIN_WORK`` multiply-adds (below it even a region whose if clause is false costs a
    libgomp call and a getenv, as much as a batched product's small item)."""
    m, n, k = mnk
    return not all(isinstance(d, int) for d in mnk) or m * n * k >= PARALLEL_MIN_WORK  # type: ignore[operator]


def _is_small(m: IndexExpr, n: IndexExpr, k: IndexExpr, symmetric: bool) -> bool:
    """Static sizes with so little work that packing would cost more than it saves (a symmetric
    product's half, computed by the packed path, only below ``SMALL_MAX_WORK``)."""
    if not all(isinstance(d, int) for d in (m, n, k)) or k > 256:  # type: ignore[operator]
        return False
    work = m * n * k  # type: ignore[operator]
    return work <= SMALL_MAX_WORK or (not symmetric and work <= SMALL_PANEL_MAX_WORK and n % 16 == 0)  # type: ignore[operator]


def _epilogue(em: FunctionEmitter, block: Block, begin: str, end: str) -> None:
    em.bind(block.args[0], begin)
    em.bind(block.args[1], end)
    em.emit_ops(block)


def _row_blocks(
    em: FunctionEmitter,
    epilogue: Block,
    prefix: str,
    elem: str,
    mnk: tuple[IndexExpr, IndexExpr, IndexExpr],
    pack_b: str,
    rows: str,
    mirror: str | None = None,
) -> None:
    """B packed once (its column panels shared among the threads), then row blocks of C shared
    among threads, each followed by the epilogue.

    ``pack_b`` and ``rows`` are C statements with ``{bp}``, ``{p0}``, ``{p1}`` (B's column
    panels), ``{ap}``, ``{begin}``, ``{end}`` holes. A symmetric product's ``rows`` computes a
    lower triangle, bottom row blocks (the longest) first; then ``mirror`` fills the upper one
    per row block, once every block is done, and the epilogue runs once, on all rows."""
    m, n, k = mnk
    bp, ap = em.fresh("gemm_bp"), em.fresh("gemm_ap")
    begin, end = em.fresh("row_begin"), em.fresh("row_end")
    em.open("{")
    em.line(f"{elem} *{bp} = {prefix}_b_buffer({prefix}_packed_b_size({k}, {n}));")
    nb, block = em.fresh("gemm_blocks"), em.fresh("row_block")
    threaded = _threaded(mnk)
    if threaded:
        nt = em.fresh("gemm_threads")
        done = _team(em, nt, m, n, k)
        em.line(f"const int64_t {nb} = {prefix}_blocks({m}, {n}, {nt});")  # row blocks shared evenly by the threads
        em.line("#ifdef _OPENMP")
        em.line(f"#pragma omp parallel num_threads({nt}) if ({nt} > 1)")
        em.line("#endif")
    else:
        em.line(f"const int64_t {nb} = {prefix}_blocks({m}, {n}, 1);")
        em.line(pack_b.format(bp=bp, p0="0", p1=f"{prefix}_panels({n})"))
    em.open("{")
    if threaded:  # the threads pack B's column panels as they come; the loop's barrier ends the packing
        panel = em.fresh("panel")
        em.line("#ifdef _OPENMP")
        em.line("#pragma omp for schedule(dynamic, 1)")
        em.line("#endif")
        em.open(f"for (int64_t {panel} = 0; {panel} < {prefix}_panels({n}); {panel}++) {{")
        em.line(pack_b.format(bp=bp, p0=panel, p1=f"{panel} + 1"))
        em.close()
    em.line(f"{elem} *{ap} = {prefix}_a_buffer();")
    if threaded:
        em.line("#ifdef _OPENMP")
        em.line("#pragma omp for schedule(dynamic, 1)")
        em.line("#endif")
    bounds = (f"const int64_t {begin} = {prefix}_block_begin({block}, {m}, {nb}), "
              f"{end} = {prefix}_block_begin({block} + 1, {m}, {nb});")
    if mirror is None:
        em.open(f"for (int64_t {block} = 0; {block} < {nb}; {block}++) {{")
        em.line(bounds)
        em.line(rows.format(bp=bp, ap=ap, begin=begin, end=end))
        _epilogue(em, epilogue, begin, end)
        em.close()
        em.close()
        if threaded:
            em.line(done)
        em.close()
        return
    em.open(f"for (int64_t {block} = {nb} - 1; {block} >= 0; {block}--) {{")
    em.line(bounds)
    em.line(rows.format(bp=bp, ap=ap, begin=begin, end=end))
    em.close()
    if threaded:  # the loop's barrier: every lower block is done before any is mirrored
        em.line("#ifdef _OPENMP")
        em.line("#pragma omp for schedule(dynamic, 1)")
        em.line("#endif")
    em.open(f"for (int64_t {block} = 0; {block} < {nb}; {block}++) {{")
    em.line(bounds)
    em.line(mirror.format(begin=begin, end=end))
    em.close()
    em.close()
    if threaded:
        em.line(done)
    _epilogue(em, epilogue, "0", str(m))
    em.close()
