"""``kiln-opt``: xdsl-opt with kiln's dialects, passes and targets, and clean diagnostics.

Everything xdsl-opt accepts works here (``-p``, ``-t``, ``--split-input-file``,
``--verify-diagnostics``, ``--print-op-generic``, ``--print-between-passes``).
Added: ``--load MODULE`` imports a user's Python module (a dotted name or a
``.py`` path) that may call :func:`kiln.register_dialect` /
:func:`kiln.register_pass` / :func:`kiln.register_rule_native` to extend the tool;
``--rules FILE`` applies a rule file (docs/rules.md) before the ``-p`` pipeline. Errors in the input, the
pipeline or a pass are reported as one diagnostic with a non-zero exit code,
never as a Python traceback; an op that does not verify is named with its location.
An exception raised in the user's own code (a ``--load`` pass, a rule native) is the
user's error: shown with the user's frames only. Any other exception (a bug in kiln)
is reported as ``internal error in pass P at LOCATION``, with the input, the command
and the traceback kept in a file for a bug report (tools/_crash_report.py). Ctrl-C
and a closed output (``| head``) end quietly (tools/_exits.py). ``--help`` groups what
it offers; ``--list-pipelines`` and ``--list-passes`` list it (tools/_opt_catalog.py).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable, Sequence
from io import BytesIO
from pathlib import Path
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    PassFailedException,
    VerifyException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from kiln import pipelines, registry, universe
from kiln.tools import _crash_report, _exits, _opt_catalog
from kiln.tools._load import load_file
from kiln.tools._opt_parser import KilnOptParser, OpSpans
from kiln.tools._user_code import describe, first_line, user_frames


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

    #: what the driver is doing, for internal error reports: "setup" (arguments, pipeline,
    #: reading the input), "parsing", "pass NAME", "the verifier after pass NAME", "target NAME"
    stage = "setup"
    #: the whole input as read, kept for a bug report
    input_bytes = b""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.op_spans: OpSpans = {}
        self.line_offset = 0
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            parser = KilnOptParser(
                self.ctx, io.read(), self.get_input_name(), spans=self.op_spans, line_offset=self.line_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file == "-":  # mlir-opt's spelling of standard input
            self.args.input_file = None
        stream, extension = super().get_input_stream()
        self.input_bytes = stream.read()
        if stream is not sys.stdin.buffer:
            stream.close()
        return BytesIO(self.input_bytes), extension

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        self.stage, self.line_offset = "parsing", start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def setup_pipeline(self) -> None:
        _opt_catalog.check_pass_names(self.args.passes, self.available_passes)
        time_passes, self.args.time_passes = self.args.time_passes, False  # timed below, to stderr
        super().setup_pipeline()
        callback = self.pipeline.callback
        # a named pipeline (graph-to-c) runs as its passes, so that --print-between-passes,
        # --time-passes and internal error reports see each of them
        self.pipeline = PassPipeline(tuple(p for q in self.pipeline.passes for p in _expand(q)), callback)
        if self.args.rules:  # rule files run first, as apply-rules passes (checked here, before any input)
            from kiln.passes.apply_rules import ApplyRules
            from kiln.passes.rules import load_rules

            for spec in self.args.rules:
                load_rules(spec)
            rules = tuple(ApplyRules(file=spec) for spec in self.args.rules)
            self.pipeline = PassPipeline((*rules, *self.pipeline.passes), callback)

        started = time.perf_counter()

        def tracking(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            nonlocal started
            if time_passes and previous is not None:  # stderr: stdout is the program (`> out.c`)
                print(f"Pass {previous.name} took {time.perf_counter() - started} seconds", file=sys.stderr)
            self.stage = f"the verifier after pass {previous.name}" if previous else "the verifier"
            if callback is not None:
                callback(previous, module, following)
            self.stage = f"pass {following.name}" if following else self.stage
            started = time.perf_counter()

        self.pipeline = PassPipeline(self.pipeline.passes, tracking)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        self.stage = f"target {parse_spec(self.args.target).name}"
        return super().output_resulting_program(prog)

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in registry.USER_DIALECTS.items():
            self.ctx.register_dialect(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets = {name: self.available_targets[name] for name in _opt_catalog.TARGETS}

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in registry.USER_PASSES.items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        actions = {a.dest: a for a in arg_parser._actions}  # pyright: ignore[reportPrivateUsage]
        actions["passes"].help = _opt_catalog.passes_help()
        actions["target"].help = _opt_catalog.targets_help()
        arg_parser.epilog = _opt_catalog.help_epilog(self.available_passes)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        _add_listing(arg_parser, "--list-pipelines", "list kiln's named pipelines and the passes each runs",
                     _opt_catalog.list_pipelines)
        _add_listing(arg_parser, "--list-passes", "list every pass: kiln's, the --load modules', xDSL's",
                     lambda: _opt_catalog.list_passes(self.available_passes))
        arg_parser.add_argument(
            "--load",
            action="append",
            default=[],
            metavar="MODULE",
            help="import a Python module (dotted name or .py path) that registers "
            "extra dialects and passes with kiln.register_dialect / kiln.register_pass",
        )
        arg_parser.add_argument(
            "--rules",
            action="append",
            default=[],
            metavar="FILE",
            help="apply the rules of FILE (a path, or kiln:NAME for one of kiln's) before the -p pipeline",
        )


def _add_listing(arg_parser: argparse.ArgumentParser, flag: str, help: str, text: Callable[[], str]) -> None:
    """A flag that prints ``text()`` and exits, as ``--version`` does (no input is read)."""

    class Listing(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
            print(text())
            parser.exit()

    arg_parser.add_argument(flag, nargs=0, action=Listing, help=help)


def _expand(p: ModulePass) -> tuple[ModulePass, ...]:
    """The passes a named pipeline runs, or ``p`` itself."""
    if p.name not in pipelines.PIPELINES:
        return (p,)
    return universe.build_pipeline(pipelines.pipeline_spec(p.name)).passes


def _preload(argv: Sequence[str]) -> None:
    """Handle ``--load`` before the driver registers passes, so user passes parse."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--load", action="append", default=[])
    known, _ = pre.parse_known_args(argv)
    for spec in known.load:
        try:
            _load_user_module(spec)
        except Exception as e:  # noqa: BLE001 (the user's module failed: their error, at their line)
            frames = user_frames(e)
            where = f"{frames[-1].filename}:{frames[-1].lineno}: " if frames else ""
            raise UserModuleError(f"--load {spec}: {where}{type(e).__name__}: {first_line(e)}") from e


class UserModuleError(ValueError):
    """A ``--load`` module raised while it was imported (a bad op definition, say)."""


#: errors of the command line, the pipeline spec, the input file or a --load module: user errors
_SETUP_ERRORS = (ValueError, ImportError, OSError, NotImplementedError, KeyError, SyntaxError)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kiln-opt`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    driver: KilnOptMain | None = None
    try:
        _preload(argv)
        driver = KilnOptMain(description="kiln modular optimizer driver", args=argv)
        driver.run()
    except KeyboardInterrupt:
        return _exits.interrupted("kiln-opt")
    except BrokenPipeError:
        return _exits.output_closed()
    except (ParseError, DiagnosticException, PassFailedException, ArgSpecParseError) as e:
        # ArgSpecParseError (a bad -p spec, such as an unquoted path) is a BaseException
        print(f"kiln-opt: error: {_diagnostic(driver, e)}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 (a bug: reported, never a traceback)
        if (driver is None or driver.stage == "setup") and isinstance(e, _SETUP_ERRORS):
            print(f"kiln-opt: error: {e}", file=sys.stderr)
        elif isinstance(e, NotImplementedError) and driver is not None:  # a pass's or target's "unsupported"
            print(f"kiln-opt: error: {_describe(driver, e)}: not supported: {e}", file=sys.stderr)
        elif frames := user_frames(e):  # a bug in the user's pass or native: theirs to fix, no bug report
            where = _describe(driver, e) if driver is not None else "while setting up"
            print(f"kiln-opt: error: {where}: {describe(e, frames)}", file=sys.stderr)
        else:
            _report_internal_error(driver, argv, e)
        return 1
    return 0


def _diagnostic(driver: KilnOptMain | None, exc: BaseException) -> str:
    """The message of a diagnostic; an op the verifier refused is named with its location (the
    message alone did not say which op, nor where)."""
    stage = driver.stage if driver is not None else ""
    if isinstance(exc, VerifyException) and stage.startswith("the verifier") and driver is not None:
        op = _crash_report.failing_op(exc)
        if op is not None:
            after = stage.removeprefix("the verifier")  # " after pass P", or nothing before the first
            return f"{_crash_report.op_location(op, driver.op_spans)}: does not verify{after}: {exc}"
    return str(exc)


def _describe(driver: KilnOptMain, exc: Exception) -> str:
    """``in pass P at LOCATION`` (or ``while parsing at ...``, ``in target c at ...``): the stage
    the driver was in and where in the input."""
    stage = driver.stage
    if stage == "parsing":
        position = _crash_report.parser_position(exc, driver.line_offset)
        return f"while parsing{f' at {position}' if position else ''}"
    if stage == "setup":
        return "while setting up"
    op = _crash_report.failing_op(exc)
    where = f" at {_crash_report.op_location(op, driver.op_spans)}" if op is not None else ""
    if stage.startswith("pass ") and (inner := _crash_report.failing_pass(exc)) and inner != stage[5:]:
        stage = f"pass {inner} (of {stage[5:]})"  # a named pipeline, or a pass that runs others
    return f"in {stage}{where}"


def _report_internal_error(driver: KilnOptMain | None, argv: Sequence[str], exc: Exception) -> None:
    """``internal error in pass P at LOCATION: Type: message``, and where the input is kept."""
    where = _describe(driver, exc) if driver is not None else "while setting up"
    print(f"kiln-opt: internal error {where}: {type(exc).__name__}: {first_line(exc)}", file=sys.stderr)
    try:
        kept = _crash_report.keep_input(driver.input_bytes if driver else b"", argv, exc)
    except OSError as e:
        print(f"kiln-opt: (the input could not be kept for a bug report: {e})", file=sys.stderr)
    else:
        print(f"kiln-opt: the input, the command and the traceback are kept in {kept} for a bug report", file=sys.stderr)

if __name__ == "__main__":
    sys.exit(main())
