"""A child process that checks program files, one JSON line in and one out per program.

``python -m kiln.fuzz.worker`` reads ``{"id": ..., "path": ...}`` lines on stdin and
answers each with the :class:`~kiln.fuzz.check.Outcome` as a JSON line. The answers
go to a private copy of the original stdout; file descriptor 1 itself is pointed
at stderr, so whatever a program or its compiled code prints cannot garble
the protocol. The parent (:mod:`kiln.fuzz.pool`) enforces the time limit and
sees signals, so a hang or a segfault costs this process, not the campaign.
"""

from __future__ import annotations

import json
import os
import sys
import traceback


def main() -> None:
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from kiln.fuzz.check import Outcome, check_file

    import kiln  # noqa: F401  (imported once, before the first program's clock starts)

    for line in sys.stdin:
        job = json.loads(line)
        def compiling() -> None:
            answers.write(json.dumps({"phase": "kiln"}) + "\n")

        try:
            out = check_file(job["path"], on_compile=compiling)
        except BaseException as e:  # noqa: BLE001 - whatever a program does, answer
            out = Outcome("crash", f"{type(e).__name__} escaped the check: {e}"[:500],
                          f"{type(e).__name__} escaped the check", traceback.format_exc()[-4000:])
        answers.write(json.dumps({"id": job["id"], **out.to_dict()}) + "\n")


if __name__ == "__main__":
    main()
