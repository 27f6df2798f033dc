"""Mutation fuzzer for kiln-opt: no input may end in a Python traceback or a hang.

The seeds are the inputs of a lit test folder (``--lit DIR``, or lit files; default: kiln's own
tests/lit in a checkout) with the kiln-opt commands of their RUN lines (pipelines, targets,
flags; ``%s``, ``%S`` and ``%p`` substituted as lit does). ``--load FILE`` (repeatable) adds
``--load FILE`` to every command, so that the inputs run through the user's own dialects and
passes, and the op mutations draw on the user's ops too. Each fuzz input is a seed with 1-3
mutations: a line deleted, duplicated or swapped with the next, a type changed (element type or a
dimension), an op name replaced by another op's, an SSA name replaced by another, an integer
changed, or the text truncated. kiln-opt runs in a worker process (in-process calls of
``kiln_opt.main``, so a run costs milliseconds, not an interpreter start); a run that does not
finish in time is a hang, and the worker is replaced. Outcomes: ``ok`` (exit 0), ``diagnostic``
(exit 1 with kiln-opt's error line), ``user`` (an exception in the user's own code, a ``--load``
pass or native, shown with the user's frames), ``internal`` (kiln-opt's internal error report,
no traceback); these two are tolerated, counted and reported with their inputs kept; and the
failures ``traceback`` (an exception escaped or a traceback was printed), ``hang`` and ``died``.

Input ``i`` of seed ``s`` depends on nothing else, so a failure is reproduced alone::

    python -m kiln.tools.opt_fuzz --count 1000 --seed 1      # a campaign; failures kept in --keep
    python -m kiln.tools.opt_fuzz --seed 1 --only 417 -v     # one input again, its stderr shown
    kiln fuzz-opt --lit tests --load mine.py --count 1000    # a project's own lit tests and passes

kiln's tests/test_kiln_opt_fuzz.py runs a fixed seeded set in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: kiln's own lit tests, the default seeds (None in an installed kiln: there, --lit is required)
LIT: Path | None = Path(__file__).resolve().parent.parent / "tests" / "lit"
if not LIT.is_dir():
    LIT = None
FAILURES = ("traceback", "hang", "died")
#: tolerated, but reported with the input kept: a bug in the user's code, a bug kiln-opt reported
REPORTED = ("user", "internal")
#: kiln-opt's error for an exception in the user's code: the message, then the user's frames
_USER_ERROR = re.compile(r'^kiln-opt: error: .*\n  File ".+", line \d+, in ', re.M)


@dataclass(frozen=True)
class Seed:
    """A lit input and one kiln-opt command line of its RUN lines (``%s`` where the input goes)."""

    path: Path
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    def label(self) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.env)
        return f"{env + ' ' if env else ''}kiln-opt {shlex.join(self.args)}  [{self.path}]"


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str


# ------------------------------------------------------------------------------------- seeds


def _run_lines(text: str) -> list[str]:
    """The RUN commands of a lit file, continuation lines joined."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        m = re.search(r"RUN:(.*)$", line)
        if not m:
            continue
        part = m.group(1).strip()
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        commands.append(pending + part)
        pending = ""
    return commands


def _kiln_opt_commands(command: str, path: Path, root: Path) -> Iterator[Seed]:
    command = command.replace("%roundtrip", "kiln-opt %s --split-input-file --print-op-generic")
    command = re.sub(r"%[Sp](?!\w)", lambda _: str(path.parent), command)  # lit's: the file's folder (not %python)
    for segment in re.split(r"\|\||&&|\||;", command):
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        env: list[tuple[str, str]] = []
        while words and (words[0] in ("not", "env") or re.fullmatch(r"[A-Z_]+=\S*", words[0])):
            word = words.pop(0)
            if "%t" in word:  # a setting for the test's own scratch files (e.g. a deliberate crash's report)
                words = []
            if "=" in word:
                key, value = word.split("=", 1)
                env.append((key, value))
        if not words or words[0] != "kiln-opt":
            continue
        args: list[str] = []
        source: Path | None = None
        skip = False
        it = iter(words[1:])
        for word in it:
            if word in (">", "2>", "<", "-o") or word.startswith(("2>", ">")):
                if word in (">", "2>", "<", "-o"):
                    next(it, None)
                continue
            if "%t" in word or "%{" in word:
                skip = True
            if word == "%s":
                source = path
                args.append("%s")
            elif word.startswith("%inputs/"):
                target = root / "Inputs" / word[len("%inputs/") :]
                if target.suffix == ".mlir" and source is None:
                    source = target
                    args.append("%s")
                else:
                    args.append(str(target))
            else:
                args.append(word)
        if source is not None and not skip:
            yield Seed(source, tuple(args), tuple(env))


def seeds(lit: list[Path] | None = None, loads: tuple[Path, ...] = ()) -> list[Seed]:
    """Every (input, kiln-opt command) pair of the lit tests (folders, searched for ``*.mlir``, or
    files; default kiln's own), in a stable order, without repeats; ``--load`` of each of
    ``loads`` added to every command."""
    paths = lit or [_kiln_lit()]
    extra = tuple(arg for path in loads for arg in ("--load", str(path.resolve())))
    found: dict[Seed, None] = {}
    for given in paths:
        given = given.resolve()
        root = given if given.is_dir() else given.parent
        files = sorted(given.rglob("*.mlir")) if given.is_dir() else [given]
        for path in files:
            if "Output" in path.relative_to(root).parts or "Inputs" in path.relative_to(root).parts:
                continue
            for command in _run_lines(path.read_text()):
                for seed in _kiln_opt_commands(command, path, root):
                    found.setdefault(Seed(seed.path, seed.args + extra, seed.env))
    return list(found)


def _kiln_lit() -> Path:
    if LIT is None:
        raise ValueError("--lit is required: kiln's own lit tests are not installed, name your lit folder or files")
    return LIT


# ---------------------------------------------------------------------------------- mutation

_TYPES = ["f16", "f32", "f64", "i1", "i8", "i32", "i64", "index"]
_TYPE_RE = re.compile(r"\b(f16|f32|f64|i1|i8|i32|i64|index)\b")
_DIM_RE = re.compile(r"(?<=[<x])(\d+|\?)(?=x)")
_OP_RE = re.compile(r"\b(?:arith|math|scf|func|memref|tensor|linalg|vector|graph|kmath|kvec|krt|kernel|cf|affine|gpu|bufferization)\.[a-z_0-9.]+\b")
_SSA_RE = re.compile(r"%[A-Za-z_0-9#]+")
_INT_RE = re.compile(r"(?<![\w.%#^])-?\d+(?![\w.])")


def _op_pattern(dialects: tuple[str, ...] = ()) -> re.Pattern[str]:
    """``_OP_RE``, matching the ops of ``dialects`` (the user's) too."""
    if not dialects:
        return _OP_RE
    names = "|".join(re.escape(d) for d in dialects)
    return re.compile(_OP_RE.pattern.replace(r"\b(?:", rf"\b(?:{names}|", 1))


def _vocabulary(corpus: list[Seed], dialects: tuple[str, ...] = ()) -> list[str]:
    ops: set[str] = set()
    pattern = _op_pattern(dialects)
    for path in {seed.path for seed in corpus}:
        ops.update(pattern.findall(path.read_text()))
    return sorted(ops)


def user_dialects(loads: tuple[Path, ...]) -> tuple[str, ...]:
    """The user dialects' names once the ``--load`` files are imported here (as kiln-opt imports them):
    the op mutations replace their ops too."""
    if not loads:
        return ()
    from kiln import registry
    from kiln.tools._load import load_file
    from kiln.tools._user_code import describe, user_frames

    for path in loads:
        try:
            load_file(path)
        except Exception as e:  # noqa: BLE001 (the user's module failed: their error, at their line)
            raise ValueError(f"--load {path}: {describe(e, user_frames(e))}") from e
    return tuple(sorted(registry.USER_DIALECTS))


def _replace_one(text: str, pattern: re.Pattern[str], rng: random.Random, choose) -> tuple[str, str] | None:  # noqa: ANN001
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = choose(m.group(0))
    return text[: m.start()] + new + text[m.end() :], f"{m.group(0)!r}->{new!r} at {m.start()}"


def mutate(text: str, rng: random.Random, ops: list[str], op_re: re.Pattern[str] = _OP_RE) -> tuple[str, list[str]]:
    """``text`` with 1-3 random mutations, and what they were (an op name that ``op_re`` matches
    replaced by one of ``ops``, among others)."""
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        lines = text.split("\n")
        kind = rng.choice(["delete", "duplicate", "swap", "type", "dim", "op", "ssa", "int", "truncate"])
        result: tuple[str, str] | None = None
        if kind in ("delete", "duplicate", "swap") and len(lines) > 1:
            i = rng.randrange(len(lines) - 1)
            if kind == "delete":
                new_lines = lines[:i] + lines[i + 1 :]
            elif kind == "duplicate":
                new_lines = lines[: i + 1] + lines[i:]
            else:
                new_lines = lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2 :]
            result = "\n".join(new_lines), f"line {i + 1}"
        elif kind == "type":
            result = _replace_one(text, _TYPE_RE, rng, lambda old: rng.choice([t for t in _TYPES if t != old]))
        elif kind == "dim":
            result = _replace_one(text, _DIM_RE, rng, lambda old: rng.choice(["0", "1", "3", "7", "16", "?"]))
        elif kind == "op" and ops:
            result = _replace_one(text, op_re, rng, lambda old: rng.choice(ops))
        elif kind == "ssa":
            names = sorted(set(_SSA_RE.findall(text)))
            result = _replace_one(text, _SSA_RE, rng, lambda old: rng.choice(names))
        elif kind == "int":
            result = _replace_one(text, _INT_RE, rng, lambda old: rng.choice(["0", "1", "-1", "2", "5", "4096", "-9223372036854775808"]))
        elif kind == "truncate" and text:
            cut = rng.randrange(len(text))
            result = text[:cut], f"at {cut}"
        if result is not None:
            text = result[0]
            done.append(f"{kind} {result[1]}")
    return text, done


def fuzz_input(corpus: list[Seed], ops: list[str], seed: int, index: int,
               op_re: re.Pattern[str] = _OP_RE) -> tuple[Seed, str, list[str]]:
    """Input ``index`` of campaign ``seed``: a lit seed and its mutated text."""
    rng = random.Random(f"kiln-opt-fuzz:{seed}:{index}")
    case = rng.choice(corpus)
    text, mutations = mutate(case.path.read_text(), rng, ops, op_re)
    if rng.random() < 0.2:  # another seed's command: a pipeline meets IR of another level
        other = rng.choice(corpus)
        case = Seed(case.path, other.args, other.env)
        mutations.append("command of another seed")
    return case, text, mutations


# ------------------------------------------------------------------------------------ worker


def _worker() -> None:
    """Run kiln-opt in this process for each JSON job on stdin; one JSON reply line each."""
    with tempfile.TemporaryDirectory(prefix="kiln-opt-fuzz-") as folder:
        tempfile.tempdir = folder  # internal error reports go here, not to the shared /tmp
        _serve(Path(folder))


def _serve(scratch: Path) -> None:
    from kiln.tools import kiln_opt

    for line in sys.stdin:
        job = json.loads(line)
        path = scratch / "input.mlir"
        path.write_text(job["input"])
        args = [str(path) if a == "%s" else a for a in job["args"]]
        saved = {k: os.environ.get(k) for k, _ in job["env"]}
        os.environ.update(dict(job["env"]))
        out, err = io.StringIO(), io.StringIO()
        escaped = None
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = kiln_opt.main(args)
        except SystemExit as e:  # argparse
            rc = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 (what the fuzzer looks for)
            rc, escaped = -1, traceback.format_exc()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        reply = {"rc": rc, "stdout": out.getvalue()[-4000:], "stderr": err.getvalue()[-4000:], "escaped": escaped}
        sys.__stdout__.write(json.dumps(reply) + "\n")
        sys.__stdout__.flush()


class Runner:
    """A worker process and the timeout around each of its runs."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kiln.tools.opt_fuzz", "--worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        return self.proc

    def run(self, case: Seed, text: str) -> Outcome:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"input": text, "args": case.args, "env": case.env}) + "\n")
        proc.stdin.flush()
        reply: list[str] = []
        reader = threading.Thread(target=lambda: reply.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(self.timeout)
        if reader.is_alive() or not reply or not reply[0]:
            hung = reader.is_alive()
            self.close(kill=True)
            return Outcome("hang" if hung else "died", f"no answer in {self.timeout:.0f} s" if hung else "worker died")
        return classify(json.loads(reply[0]))

    def close(self, kill: bool = False) -> None:
        """End the worker: at once (it hangs), or by closing its input (it cleans up)."""
        if self.proc is not None:
            assert self.proc.stdin is not None
            try:
                if not kill:
                    self.proc.stdin.close()
                    self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


def classify(reply: dict[str, object]) -> Outcome:
    stdout, stderr = str(reply["stdout"]), str(reply["stderr"])
    if reply["escaped"]:
        return Outcome("traceback", str(reply["escaped"]))
    if "Traceback (most recent call last)" in stdout + stderr:
        return Outcome("traceback", stdout + stderr)
    if reply["rc"] == 0:
        return Outcome("ok", "")
    if "internal error" in stderr:
        return Outcome("internal", stderr)
    if _USER_ERROR.search(stderr):
        return Outcome("user", stderr)
    return Outcome("diagnostic", stderr)


# ----------------------------------------------------------------------------------- campaign


def campaign(seed: int, indices: range | list[int], timeout: float = 60.0, keep: Path | None = None,
             verbose: bool = False, lit: list[Path] | None = None,
             loads: tuple[Path, ...] = ()) -> tuple[Counter[str], list[str]]:
    """Run the inputs ``indices`` of campaign ``seed`` over the lit tests ``lit`` (default kiln's)
    with the user's ``loads``: outcome counts, and reports of the failures and of the ``REPORTED``
    outcomes (tolerated: kiln-opt reported them without a traceback), each starting with its outcome."""
    corpus = seeds(lit, loads)
    if not corpus:
        raise ValueError(f"no kiln-opt command in the RUN lines of {', '.join(map(str, lit or [_kiln_lit()]))}")
    dialects = user_dialects(loads)
    op_re = _op_pattern(dialects)
    ops = _vocabulary(corpus, dialects)
    counts: Counter[str] = Counter()
    reports: list[str] = []
    runner = Runner(timeout)
    try:
        for index in indices:
            case, text, mutations = fuzz_input(corpus, ops, seed, index, op_re)
            outcome = runner.run(case, text)
            counts[outcome.kind] += 1
            if verbose:
                print(f"#{index} {outcome.kind}: {case.label()} {mutations}\n{outcome.detail}", flush=True)
            if outcome.kind in (*FAILURES, *REPORTED):
                report = f"{outcome.kind}: input {index} of seed {seed}: {case.label()}; mutations {mutations}"
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    kept = keep / f"seed{seed}-{index}.mlir"
                    kept.write_text(text)
                    report += f"; input kept in {kept}"
                reports.append(f"{report}\n{outcome.detail}")
    finally:
        runner.close()
    return counts, reports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The fuzzer's options, on ``python -m kiln.tools.opt_fuzz`` and on ``kiln fuzz-opt``."""
    parser.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    parser.add_argument("--count", type=int, default=200, help="mutated inputs to run (default 200)")
    parser.add_argument("--start", type=int, default=0, help="first input index (default 0)")
    parser.add_argument("--only", type=int, action="append", help="run just this input index (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run is a hang (default 60)")
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "kiln-opt-fuzz-failures",
                        help="folder for the inputs that failed")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every run's outcome and stderr")
    parser.add_argument("--lit", type=Path, action="append", metavar="PATH",
                        help="a lit test folder (its *.mlir) or file whose RUN lines' kiln-opt commands are the seeds "
                             "(repeatable; default: kiln's own tests/lit, in a checkout of kiln only)")
    parser.add_argument("--load", type=Path, action="append", default=[], metavar="FILE",
                        help="a Python file registering your dialects and passes, added as --load to every command "
                             "(repeatable)")


def run(args: argparse.Namespace) -> int:
    """Run the campaign ``args`` asks for and print its failures and outcome counts: exit status
    1 when a run failed; ``ValueError`` for a bad --lit or --load."""
    missing = [str(p) for p in [*(args.lit or []), *args.load] if not p.exists()]
    if missing:
        raise ValueError(f"no such file or folder: {', '.join(missing)}")
    indices = args.only or range(args.start, args.start + args.count)
    start = time.perf_counter()
    counts, reports = campaign(args.seed, indices, args.timeout, args.keep, args.verbose, args.lit,
                               tuple(p.resolve() for p in args.load))
    for report in reports:
        print(report, end="\n\n")
    total = sum(counts.values())
    summary = ", ".join(f"{kind} {counts[kind]}" for kind in ("ok", "diagnostic", *REPORTED, *FAILURES))
    print(f"{total} mutated inputs (seed {args.seed}) in {time.perf_counter() - start:.0f} s: {summary}")
    return 1 if any(counts[kind] for kind in FAILURES) else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m kiln.tools.opt_fuzz``."""
    parser = argparse.ArgumentParser(prog="python -m kiln.tools.opt_fuzz", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    try:
        return run(args)
    except ValueError as e:
        parser.error(str(e))


if __name__ == "__main__":
    sys.exit(main())
