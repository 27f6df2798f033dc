"""``python -m kiln.fuzz``: run a differential fuzzing campaign (see docs/fuzzing.md)."""

from __future__ import annotations

import argparse
import sys

from kiln.fuzz.campaign import FAILURES, default_jobs, minimize_files, run_campaign
from kiln.fuzz.check import main as check_main
from kiln.fuzz.config import Config
from kiln.fuzz.modes import MODES, generate_program


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kiln.fuzz", description=__doc__)
    p.add_argument("--count", type=int, default=100, help="programs to run (default 100)")
    p.add_argument("--seed", type=int, default=0, help="campaign seed: program I is named SEED-I")
    p.add_argument("--jobs", type=int, default=default_jobs(), help="worker processes")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per program before it is a crash")
    p.add_argument("--out", help="folder for failures, repros and the summary (default: a new temporary one)")
    p.add_argument("--mode", choices=MODES, default="numpy",
                   help="what to check: numpy (kiln.function against NumPy), grad (kiln.grad against central differences), "
                        "python (lists, Python numbers, assert, raise, and/or against the program run as Python)")
    p.add_argument("--without", default="", help=f"constructs not to generate, comma-separated: {', '.join(Config.names())}")
    p.add_argument("--no-minimize", action="store_true", help="do not minimize failures")
    p.add_argument("--minimize-refused", action="store_true", help="minimize refusals too (one per distinct message)")
    p.add_argument("--minimize-budget", type=int, default=120, help="checks per minimized failure")
    p.add_argument("--per-signature", type=int, default=1, help="failures minimized per distinct signature")
    p.add_argument("--print", metavar="NAME", help="print program NAME (e.g. 3-17) and exit")
    p.add_argument("--check", nargs="+", metavar="FILE", help="classify these program files and exit")
    p.add_argument("--minimize", nargs="+", metavar="FILE",
                   help="minimize these program files (keeping their outcome) into --out and exit")
    a = p.parse_args(argv)
    without = [w for w in a.without.split(",") if w]
    if a.print:
        print(generate_program(a.mode, a.print, Config().without(without)).source, end="")
        return 0
    if a.check:
        for path in a.check:
            print(f"== {path}")
            check_main(path)
        return 0
    if a.minimize:
        for path in minimize_files(a.minimize, a.out, a.jobs, a.timeout, a.minimize_budget):
            print(path)
        return 0
    classes = () if a.no_minimize else FAILURES + (("refused",) if a.minimize_refused else ())
    summary = run_campaign(
        a.count, a.seed, jobs=a.jobs, timeout=a.timeout, out_dir=a.out, without=without,
        minimize_classes=classes, minimize_budget=a.minimize_budget, per_signature=a.per_signature,
        progress=lambda s: print(s, file=sys.stderr, flush=True), mode=a.mode,
    )
    print(summary.table())
    return 1 if summary.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
