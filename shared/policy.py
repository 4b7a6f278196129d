"""How much context a model call is given: the context policy, one switch for every service.

`PLANWIRE_CONTEXT_POLICY` picks it:

- `default`: the history is trimmed to whole change units within a token budget, trimmed-away
  turns are recalled only where they relate, every step starts stateless at its boundary
  (earlier steps reach it only as validated artifacts, each labelled with what it must not be
  used as);
- `naive`: the obvious way, kept to measure what the default saves (`planwire eval --compare
  naive`): the full history on every call, no trimming and no recall, and steps chained across
  boundaries (each step's call continues the previous step's exchange), artifacts unlabelled.

The code that builds a prompt reads the policy; nothing else changes between the two, so the
same plans come out and only what the model is shown differs.
"""

from __future__ import annotations

import os
from enum import StrEnum

ENV = "PLANWIRE_CONTEXT_POLICY"


class ContextPolicy(StrEnum):
    """See the module docstring."""

    DEFAULT = "default"
    NAIVE = "naive"


def parse_policy(text: str | None) -> ContextPolicy:
    """The policy a setting names (empty: the default); a clear error for anything else."""
    value = (text or "").strip() or ContextPolicy.DEFAULT.value
    try:
        return ContextPolicy(value)
    except ValueError:
        choices = ", ".join(p.value for p in ContextPolicy)
        raise ValueError(f"{ENV}={text!r}: choose one of {choices}") from None


def context_policy() -> ContextPolicy:
    """The policy this process runs under (read from the environment on each call)."""
    return parse_policy(os.environ.get(ENV))


def naive() -> bool:
    """True under the naive policy."""
    return context_policy() is ContextPolicy.NAIVE
