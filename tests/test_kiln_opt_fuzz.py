"""kiln-opt on mutated lit inputs: never a traceback, never a hang (tests/kiln_opt_fuzz.py).

A fixed seeded set runs here (under a minute); longer campaigns run from the command line:
``python tests/kiln_opt_fuzz.py --count 5000 --seed 7``."""

from __future__ import annotations

import kiln_opt_fuzz as fuzz

FIXED_SEED = 0
FIXED_COUNT = 400


def test_seeds_are_the_lit_commands() -> None:
    corpus = fuzz.seeds()
    assert len(corpus) >= 50
    assert any(seed.args[-2:] == ("-t", "c") for seed in corpus)
    assert any("--split-input-file" in seed.args for seed in corpus)
    assert all("%s" in seed.args for seed in corpus)


def test_inputs_are_reproducible_one_by_one() -> None:
    corpus = fuzz.seeds()
    ops = fuzz._vocabulary(corpus)
    first = fuzz.fuzz_input(corpus, ops, 3, 17)
    assert fuzz.fuzz_input(corpus, ops, 3, 17) == first
    assert first[1] != first[0].path.read_text()  # mutated


def test_fixed_seeded_set_has_no_traceback_or_hang() -> None:
    counts, reports = fuzz.campaign(FIXED_SEED, range(FIXED_COUNT), timeout=60)
    failures = [r for r in reports if r.startswith(fuzz.FAILURES)]
    assert not failures, "\n\n".join(failures)
    assert sum(counts.values()) == FIXED_COUNT
    assert counts["ok"] > 0 and counts["diagnostic"] > 0  # the harness runs kiln-opt for real


def test_outcomes() -> None:
    def reply(rc: int, stderr: str = "", escaped: str | None = None) -> dict[str, object]:
        return {"rc": rc, "stdout": "", "stderr": stderr, "escaped": escaped}

    assert fuzz.classify(reply(-1, escaped="Traceback ...\nIndexError")).kind == "traceback"
    assert fuzz.classify(reply(1, "Traceback (most recent call last):\n  File")).kind == "traceback"
    assert fuzz.classify(reply(1, "kiln-opt: internal error in pass p at f.mlir:1:1 ('x.y'): E: m")).kind == "internal"
    assert fuzz.classify(reply(1, "kiln-opt: error: f.mlir:1:1 expected type")).kind == "diagnostic"
    assert fuzz.classify(reply(0)).kind == "ok"
