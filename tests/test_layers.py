"""kiln's layers import only downward: dialects <- passes <- backends, the frontend on top.

What one stage promises the next is declared in a dialect-layer module (kiln.dialects.contracts,
kiln.dialects.target), so a pass and a backend never import each other. Every import counts
here, also one inside a function, and together they form no cycle: where a lower module must
reach a higher one, the higher one registers itself (Tensor's protocol table in
kiln.frontend.tensor, filled by kiln.frontend.indexing and kiln.frontend.numpy_dispatch)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("dialects", "passes", "backends", "frontend")
#: layer -> the kiln layers it must not import
FORBIDDEN = {
    "dialects": {"passes", "backends", "frontend", "autograph", "pipelines", "registry", "universe", "fuzz", "bench"},
    "passes": {"backends", "frontend"},
    "backends": {"passes", "frontend"},
}


#: folders of the checkout that are not the kiln package
_NOT_KILN = {"tests", "build", "docs"}


def _modules() -> dict[str, Path]:
    """Every module of the kiln package (the checkout's root is the package: ``pipelines.py`` is
    ``kiln.pipelines``), the layers, tools, fuzz, bench and examples included."""
    found: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in _NOT_KILN or any(p.startswith(".") or p == "Output" for p in parts):
            continue
        inner = parts[:-1] if parts[-1] == "__init__" else parts
        found[".".join(("kiln", *inner))] = path
    return found


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every absolute import of a kiln module, at any depth."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("kiln.")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("kiln"):
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def test_layers_import_only_downward() -> None:
    wrong = []
    for name, path in _modules().items():
        layer = name.split(".")[1] if "." in name else ""
        for line, target in _imports(ast.parse(path.read_text())):
            parts = target.split(".")
            if len(parts) > 1 and parts[1] in FORBIDDEN.get(layer, set()):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)


def _graph() -> dict[str, set[str]]:
    """kiln module -> the kiln modules it imports anywhere but in `if TYPE_CHECKING:` blocks."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test)
                       for n in ast.walk(node)}
        deps: set[str] = set()
        for node in (n for n in ast.walk(tree) if id(n) not in typing_only):
            for _, target in _imports(node) if isinstance(node, (ast.Import, ast.ImportFrom)) else []:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):
                    deps.add(target)
        graph[name] = deps
    return graph


def test_imports_form_no_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycle = path[path.index(dep):] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep, [*path, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_the_isa_tables_keep_the_targets_promises() -> None:
    from kiln.backends.c.isa import table
    from kiln.dialects.target import CAPABILITIES

    for name, promised in CAPABILITIES.items():
        tbl = table(name)  # asserts the agreement itself
        assert tbl.native_bytes == promised.native_bytes
        assert ("maskload.f32" in tbl.ops) == promised.masked_memory


def test_frontend_reaches_backends_through_their_interface() -> None:
    """The frontend uses kiln.backends' target table, loader and cache, never one backend's own
    modules (kiln.backends.c, kiln.backends.cuda): a new backend changes nothing above it."""
    wrong = []
    for name, path in _modules().items():
        if not name.startswith("kiln.frontend"):
            continue
        for line, target in _imports(ast.parse(path.read_text())):
            parts = target.split(".")
            if len(parts) > 3 and parts[1] == "backends" and parts[2] in {"c", "cuda"}:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "\n".join(wrong)
