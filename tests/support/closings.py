"""Do people's own ways of saying "I'm done" reach confirmation? (issue 30)

    python -m tests.support.closings PHRASINGS.json [--cases N] [CASE PATHS ...]

PHRASINGS.json is a JSON list of last messages, written by someone who never saw the
closing rules. Each is said after every sampled case's turns (its own closing turns left
out), in-process as the services would take it; a phrasing passes when every session is in
`confirming` within two turns of it: the phrasing, and if the assistant asked something
instead, the same words once more (a person who meant "done" says it again). Prints each miss and a last line `closings: P/T phrasings reach confirmation ...`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from catalog import load_catalogue
from services.annotator.closing import said_done
from tests.support.replay import Session

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "eval" / "cases"


def sample(paths: list[Path], count: int) -> list[dict]:
    """Every n-th case of the given files and folders, for a spread of conversations."""
    files = sorted(f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p]))
    step = max(len(files) // count, 1)
    return [json.loads(f.read_text()) for f in files[::step][:count]]


def turns_to_confirm(case: dict, phrasing: str) -> int | None:
    """Turns after the case's description until the session confirms (1 = the phrasing
    itself, 2 = said again after the reply); None when it does not within two."""
    session = Session(load_catalogue())
    for turn in case["turns"]:
        if not said_done(turn):
            session.say(turn)
    if session.out.phase != "gathering":
        return 0  # already confirming before anyone said done: nothing to measure
    for n in (1, 2):
        session.say(phrasing)
        if session.out.phase == "confirming":
            return n
    return None


def main(argv: list[str] | None = None) -> int:
    """Print each phrasing that missed and the totals; exit 1 when any missed."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.closings")
    parser.add_argument("phrasings", type=Path)
    parser.add_argument("paths", type=Path, nargs="*")
    parser.add_argument("--cases", type=int, default=8)
    args = parser.parse_args(argv)
    phrasings = json.loads(args.phrasings.read_text())
    cases = sample(args.paths or [DEFAULT_CASES], args.cases)
    passed, first = 0, 0
    for phrasing in phrasings:
        took = [turns_to_confirm(case, phrasing) for case in cases]
        if all(t is not None for t in took):
            passed += 1
            first += all(t is not None and t <= 1 for t in took)
        else:
            missed = [c["id"] for c, t in zip(cases, took, strict=True) if t is None]
            print(f"MISS {phrasing!r}: {len(missed)}/{len(cases)} sessions, e.g. {missed[0]}")
    print(
        f"closings: {passed}/{len(phrasings)} phrasings reach confirmation within two turns "
        f"on all {len(cases)} sessions; {first} on the turn they are said"
    )
    return 0 if passed == len(phrasings) else 1


if __name__ == "__main__":
    sys.exit(main())
