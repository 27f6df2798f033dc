"""A fuzzing campaign: generate, check in parallel, replace invalid programs, minimize, report.

Program ``I`` of campaign seed ``S`` is :func:`~kiln.fuzz.generator.generate` of
``"S-I"``; when it turns out ``invalid`` it is replaced by ``"S-I-1"``, ``"S-I-2"``...
(up to :data:`ATTEMPTS`), so every program of a report can be regenerated from
its name. Programs are written to a temporary folder outside the kiln tree
(AutoGraph converts only user files); failing ones are copied to ``out/failures``
and their minimized forms to ``out/repros``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kiln.fuzz.check import CLASSES, Outcome
from kiln.fuzz.config import Config
from kiln.fuzz.generator import program_seed
from kiln.fuzz.minimize import minimize
from kiln.fuzz.modes import generate_program
from kiln.fuzz.pool import Pool

#: how many times an invalid program is replaced before it counts as invalid
ATTEMPTS = 4

#: classes that are failures (the CI test fails on them)
FAILURES = ("mismatch", "crash")


@dataclass
class Record:
    index: int
    seed: str
    status: str
    message: str
    signature: str
    seconds: float
    replaced: int = 0
    failure_file: str = ""
    repro_file: str = ""


@dataclass
class Summary:
    seed: int
    count: int
    jobs: int
    seconds: float = 0.0
    records: list[Record] = field(default_factory=list)
    #: invalid programs replaced by another attempt
    replaced: int = 0
    out_dir: str = ""
    without: list[str] = field(default_factory=list)
    mode: str = "numpy"

    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.records)

    def failures(self) -> list[Record]:
        return [r for r in self.records if r.status in FAILURES]

    def groups(self) -> list[tuple[str, str, list[Record]]]:
        """(class, signature, records) for every distinct non-match outcome, most frequent first."""
        by: dict[tuple[str, str], list[Record]] = {}
        for r in self.records:
            if r.status not in ("match",):
                by.setdefault((r.status, r.signature), []).append(r)
        order = {c: k for k, c in enumerate(CLASSES)}
        return [(c, s, rs) for (c, s), rs in sorted(by.items(), key=lambda kv: (order[kv[0][0]], -len(kv[1])))]

    def table(self) -> str:
        counts = self.counts()
        lines = [
            f"kiln.fuzz: {self.count} programs, seed {self.seed}, {self.jobs} job(s), {self.seconds:.0f} s"
            + (f", mode {self.mode}" if self.mode != "numpy" else "")
            + (f", without {','.join(self.without)}" if self.without else ""),
            "",
            f"{'class':<10} {'count':>6}",
        ]
        for c in CLASSES:
            lines.append(f"{c:<10} {counts.get(c, 0):>6}")
        lines.append(f"({self.replaced} invalid programs were replaced by another attempt)")
        groups = self.groups()
        if groups:
            lines += ["", "distinct outcomes other than match (class, count, signature; first program; repro):"]
            for c, sig, rs in groups:
                first = rs[0]
                repro = next((r.repro_file for r in rs if r.repro_file), "")
                lines.append(f"{c:<9} {len(rs):>5}  {sig}")
                lines.append(f"{'':<16}e.g. {first.seed}: {first.message[:160]}" + (f"\n{'':<16}repro: {repro}" if repro else ""))
        if self.out_dir:
            lines += ["", f"files: {self.out_dir}"]
        return "\n".join(lines)


def _write(folder: Path, seed: str, source: str) -> str:
    path = folder / f"p_{seed.replace('-', '_')}.py"
    path.write_text(source)
    return str(path)


def _repro_text(source: str, out: Outcome, note: str) -> str:
    header = [f"# kiln.fuzz {out.status}: {out.message[:300]}".replace("\n", " "), f"# signature: {out.signature}", f"# {note}",
              "# run it: python THIS_FILE (prints NumPy's and kiln's answers)"]
    footer = '\n\nif __name__ == "__main__":\n    from kiln.fuzz.check import main\n\n    main(__file__)\n'
    return "\n".join(header) + "\n" + source.rstrip() + "\n" + footer


def run_campaign(
    count: int,
    seed: int,
    *,
    jobs: int = 1,
    timeout: float = 60.0,
    out_dir: str | None = None,
    config: Config | None = None,
    without: list[str] | None = None,
    minimize_classes: tuple[str, ...] = FAILURES,
    minimize_budget: int = 120,
    per_signature: int = 1,
    progress: Callable[[str], None] | None = None,
    mode: str = "numpy",
) -> Summary:
    """Run ``count`` programs; write failures and minimized repros under ``out_dir``; return the summary."""
    config = config or Config().without(without or [])
    say = progress or (lambda s: None)
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="kiln-fuzz-programs-"))
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="kiln-fuzz-out-"))
    (out / "failures").mkdir(parents=True, exist_ok=True)
    (out / "repros").mkdir(parents=True, exist_ok=True)
    cache = str(out / "kiln-cache")
    summary = Summary(seed, count, jobs, out_dir=str(out), without=sorted(without or []), mode=mode)
    sources: dict[str, str] = {}
    records: dict[int, Record] = {}
    attempts: Counter[int] = Counter()

    def task(index: int) -> tuple[int, str]:
        name = program_seed(seed, index, attempts[index])
        sources[name] = generate_program(mode, name, config).source
        return index, _write(work, name, sources[name])

    with Pool(jobs, timeout, cache_dir=cache) as pool:
        tasks = deque(task(i) for i in range(count))
        done = 0
        for index, path, outcome in pool.run(tasks):
            name = program_seed(seed, index, attempts[index])
            if outcome.status == "invalid" and attempts[index] + 1 < ATTEMPTS:
                attempts[index] += 1
                summary.replaced += 1
                tasks.append(task(index))
                continue
            rec = Record(index, name, outcome.status, outcome.message, outcome.signature, outcome.seconds, attempts[index])
            records[index] = rec
            if outcome.status in ("mismatch", "crash", "refused"):
                keep = out / "failures" / f"{outcome.status}_{name.replace('-', '_')}.py"
                keep.write_text(_repro_text(sources[name], outcome, f"program {name} (python -m kiln.fuzz --print {name})")
                                + _detail_comment(outcome))
                rec.failure_file = str(keep)
            done += 1
            if done % 25 == 0 or done == count:
                c = Counter(r.status for r in records.values())
                say(f"{done}/{count} " + " ".join(f"{k}={c.get(k, 0)}" for k in CLASSES) + f" ({time.monotonic() - start:.0f} s)")
        summary.records = [records[i] for i in sorted(records)]

        if minimize_classes and minimize_budget > 0:
            _minimize_all(summary, sources, pool, work, out, minimize_classes, minimize_budget, per_signature, say)
    summary.seconds = time.monotonic() - start
    (out / "summary.txt").write_text(summary.table() + "\n")
    (out / "summary.json").write_text(json.dumps({**asdict(summary), "counts": summary.counts()}, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return summary


def _detail_comment(outcome: Outcome) -> str:
    if not outcome.detail:
        return ""
    return "\n# " + "\n# ".join(outcome.detail.strip().splitlines()[-40:]) + "\n"


def _minimize_all(summary: Summary, sources: dict[str, str], pool: Pool, work: Path, out: Path,
                  classes: tuple[str, ...], budget: int, per_signature: int, say: Callable[[str], None]) -> None:
    evaluate = _evaluator(pool, work)
    n = 0
    for status, sig, recs in summary.groups():
        if status not in classes or sig == "timeout":
            continue
        for rec in recs[:per_signature]:
            target = Outcome(rec.status, rec.message, rec.signature)
            say(f"minimizing {rec.seed} ({status}: {sig[:80]})")
            small, small_out, spent = minimize(sources[rec.seed], target, evaluate, budget, batch=pool.jobs)
            n += 1
            path = out / "repros" / f"{status}_{n:02d}_{rec.seed.replace('-', '_')}.py"
            path.write_text(_repro_text(small, small_out, f"minimized from program {rec.seed} in {spent} checks")
                            + _detail_comment(small_out))
            for r in recs:
                if r is rec:
                    r.repro_file = str(path)


def minimize_files(paths: list[str], out_dir: str | None, jobs: int, timeout: float, budget: int) -> list[str]:
    """Minimize program files as they fail now; the repros go to ``out_dir`` (default: a temporary folder)."""
    work = Path(tempfile.mkdtemp(prefix="kiln-fuzz-programs-"))
    out = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="kiln-fuzz-out-"))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with Pool(jobs, timeout, cache_dir=str(out / "kiln-cache")) as pool:
        evaluate = _evaluator(pool, work)
        for path in paths:
            source = _strip_repro(Path(path).read_text())
            (target,) = evaluate([source])
            small, small_out, spent = minimize(source, target, evaluate, budget, batch=pool.jobs)
            dest = out / f"min_{Path(path).stem}.py"
            dest.write_text(_repro_text(small, small_out, f"minimized from {path} in {spent} checks") + _detail_comment(small_out))
            written.append(str(dest))
    shutil.rmtree(work, ignore_errors=True)
    return written


def _strip_repro(text: str) -> str:
    """A program without a repro file's header comments and ``__main__`` block."""
    import ast

    tree = ast.parse(text)
    tree.body = [n for n in tree.body if not (isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))]
    return ast.unparse(tree) + "\n"


def _evaluator(pool: Pool, work: Path) -> Callable[[list[str]], list[Outcome]]:
    counter = [0]

    def evaluate(texts: list[str]) -> list[Outcome]:
        batch: deque[tuple[int, str]] = deque()
        for t in texts:
            counter[0] += 1
            batch.append((len(batch), _write(work, f"m-{counter[0]}", t)))
        results: dict[int, Outcome] = {}
        for k, _, o in pool.run(batch):
            results[k] = o
        return [results[k] for k in range(len(texts))]

    return evaluate


def default_jobs() -> int:
    return max(1, min(4, (os.cpu_count() or 2) - 1))
