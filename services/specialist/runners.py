"""Which step runners a specialist process serves, from its command line."""

from __future__ import annotations

from schemas.plan import FIXED_RUNNERS

ALL = "--all"


def select_runners(args: list[str], catalogue_ids: tuple[str, ...]) -> list[str]:
    """`gmail slack` serves those two; `--all` serves every catalogue id and the fixed runners."""
    known = (*catalogue_ids, *FIXED_RUNNERS)
    if ALL in args:
        return list(known)
    unknown = [a for a in args if a not in known]
    if unknown or not args:
        raise SystemExit(
            f"usage: python -m services.specialist.main (--all | RUNNER ...); unknown runners: {unknown or 'none given'}"
        )
    return list(dict.fromkeys(args))
