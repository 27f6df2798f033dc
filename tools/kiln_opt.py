"""``kiln-opt``: xdsl-opt with kiln's dialects, passes and targets, and clean diagnostics.

Everything xdsl-opt accepts works here (``-p``, ``-t``, ``--split-input-file``,
``--verify-diagnostics``, ``--print-op-generic``, ``--print-between-passes``).
Added: ``--load MODULE`` imports a user's Python module (a dotted name or a
``.py`` path) that may call :func:`kiln.register_dialect` /
:func:`kiln.register_pass` to extend the tool. Errors in the input, the
pipeline or a pass are reported as one diagnostic with a non-zero exit code,
never as a Python traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException
from xdsl.xdsl_opt_main import xDSLOptMain

from kiln import registry
from kiln.tools._load import load_file


def _load_user_module(spec: str) -> None:
    """Import a user's module by dotted name or by path; it registers its extensions."""
    path = Path(spec)
    if path.suffix == ".py" or path.exists():
        load_file(path)
    else:
        importlib.import_module(spec)


class KilnOptMain(xDSLOptMain):
    """The xdsl-opt driver, extended with user-registered dialects and passes."""

    version_format = "kiln-opt (kiln 0.1.0, xdsl {xdsl_version})"

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in registry.USER_DIALECTS.items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in registry.USER_PASSES.items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--load",
            action="append",
            default=[],
            metavar="MODULE",
            help="import a Python module (dotted name or .py path) that registers "
            "extra dialects and passes with kiln.register_dialect / kiln.register_pass",
        )


def _preload(argv: Sequence[str]) -> None:
    """Handle ``--load`` before the driver registers passes, so user passes parse."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--load", action="append", default=[])
    known, _ = pre.parse_known_args(argv)
    for spec in known.load:
        _load_user_module(spec)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kiln-opt`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        _preload(argv)
        driver = KilnOptMain(description="kiln modular optimizer driver", args=argv)
        driver.run()
    except ParseError as e:
        print(f"kiln-opt: error: {e}", file=sys.stderr)
        return 1
    except (DiagnosticException, PassFailedException) as e:
        print(f"kiln-opt: error: {e}", file=sys.stderr)
        return 1
    except (ValueError, ImportError, OSError, NotImplementedError, KeyError) as e:
        print(f"kiln-opt: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
