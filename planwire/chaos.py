"""`planwire chaos`, the pure part: which part dies when, and what the run's figures mean.

No I/O here. `schedule` turns a seed into the kill plan (every target at least `kills_each`
times, each kill in its own slot of the window, so a part is back before it dies again);
`verdict` compares each session under faults with the fault-free run of the same case and
counts what a user would notice: turns never answered, replies given twice, steps whose
effect was stored twice, workflows that came out different.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Fault:
    """Kill `target` at `at_s` seconds into the run and start it again `down_s` later."""

    at_s: float
    target: str
    down_s: float


def schedule(
    seed: int,
    targets: list[str],
    *,
    window_s: float,
    kills_each: int = 3,
    down_s: tuple[float, float] = (0.5, 3.0),
    once: tuple[str, ...] = (),
) -> list[Fault]:
    """The kill plan, in time order: `kills_each` kills per target, one kill per `once` part.

    Target `t`'s k-th kill falls at a random moment of the k-th of `kills_each` equal slots
    of the window, early enough that its restart delay ends inside the slot; a `once` part
    (Valkey, the broker) dies at a random moment of the window's middle half.
    """
    rng = random.Random(seed)
    slot = window_s / kills_each
    if slot <= down_s[1]:
        raise ValueError(f"a {window_s:.0f} s window is too short for {kills_each} kills each")
    faults = []
    for target in targets:
        for k in range(kills_each):
            down = round(rng.uniform(*down_s), 2)
            at = round(k * slot + rng.uniform(0, slot - down), 2)
            faults.append(Fault(at, target, down))
    for target in once:
        down = round(rng.uniform(*down_s), 2)
        faults.append(Fault(round(rng.uniform(window_s / 4, window_s * 3 / 4), 2), target, down))
    return sorted(faults)


@dataclass
class SessionRun:
    """What one session did, as the client and Redis saw it.

    `replies`: turn id -> distinct reply events for it; `sent`: turn ids the gateway accepted;
    `step_effects`: node id -> machine-written artifact versions; `workflow`: the document
    with its per-run ids left out (None when the run never completed).
    """

    case_id: str
    sent: list[str] = field(default_factory=list)
    replies: dict[str, int] = field(default_factory=dict)
    completions: int = 0
    step_effects: dict[str, int] = field(default_factory=dict)
    workflow: dict[str, Any] | None = None
    error: str | None = None
    session_id: str = ""

    @property
    def completed(self) -> bool:
        """The session ended with a built workflow."""
        return self.workflow is not None and self.completions >= 1

    def harms(self) -> list[str]:
        """What went wrong in this session, for finding it afterwards in Redis and the logs."""
        found = [f"turn {t} never answered" for t in self.sent if not self.replies.get(t)]
        found += [f"turn {t} answered {n} times" for t, n in self.replies.items() if n > 1]
        if self.completions > 1:
            found.append(f"completed {self.completions} times")
        found += [f"step {node} stored {n} times" for node, n in self.step_effects.items() if n > 1]
        return found


@dataclass(frozen=True)
class Verdict:
    """The figures `planwire chaos` prints; `ok` only when nothing was lost, doubled or changed."""

    started: int
    completed: int
    lost: int
    duplicated: int
    repeated_steps: int
    steps: int  # steps whose stored effects were counted
    differing: int
    kills: int
    dlq: int
    replicas: int = 1  # processes of each model-calling service
    fewest_kills: int = 0  # the fewest kills any one service process took
    valkey_kills: int = 0

    @property
    def ok(self) -> bool:
        """Exit status 0: every session completed, identical, with nothing lost or doubled."""
        return (
            self.lost == self.duplicated == self.differing == self.repeated_steps == 0
            and self.completed == self.started
        )

    def last_line(self) -> str:
        """The closing line: `chaos: S/S completed, lost 0, duplicated 0, differing 0, ...`."""
        return (
            f"chaos: {self.completed}/{self.started} completed, lost {self.lost}, "
            f"duplicated {self.duplicated}, differing {self.differing}, kills {self.kills}, "
            f"dlq {self.dlq}, replicas {self.replicas}, every service killed "
            f"{self.fewest_kills}+ times, valkey {self.valkey_kills}"
        )


# Per-run identifiers and times: equal runs differ in these and nothing else.
RUN_FIELDS = ("workflow_id", "session_id", "plan_id", "created_at")


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A workflow document without its per-run ids, for comparing two runs of one case."""
    return {k: v for k, v in document.items() if k not in RUN_FIELDS}


def verdict(
    runs: list[SessionRun],
    reference: dict[str, dict[str, Any]],
    kills: int,
    dlq: int,
    **more: int,
) -> Verdict:
    """The figures of a chaos run against the fault-free documents (`case id -> document`).

    A duplicate is a second reply to one turn, or a second completion of one session. A
    session that did not complete differs; so does one whose document is not the reference.
    `more`: the replicas and kill counts the last line also shows (`Verdict`'s defaults).
    """
    return Verdict(
        started=len(runs),
        completed=sum(r.completed for r in runs),
        lost=sum(sum(1 for t in r.sent if r.replies.get(t, 0) == 0) for r in runs),
        duplicated=sum(
            sum(max(0, n - 1) for n in r.replies.values()) + max(0, r.completions - 1) for r in runs
        ),
        repeated_steps=sum(sum(1 for n in r.step_effects.values() if n > 1) for r in runs),
        steps=sum(len(r.step_effects) for r in runs),
        differing=sum(
            not r.completed or comparable(r.workflow or {}) != reference.get(r.case_id)
            for r in runs
        ),
        kills=kills,
        dlq=dlq,
        **more,
    )


def kill_counts(plan: list[Fault], order: list[str]) -> dict[str, int]:
    """How many times the plan kills each part of `order`, in that order (0 for a part it
    never kills)."""
    return {part: sum(f.target == part for f in plan) for part in order}


# The shortest window, and the least room per kill of one part: a kill, a restart delay of
# up to 3 s and the restart itself must fit in the part's slot (`schedule`).
MIN_WINDOW_S = 30.0
SLOT_S = 6.0


def window_for(reference_s: float, sessions: int, distinct: int, kills_each: int = 3) -> float:
    """The kill plan's window: about as long as the sessions will take.

    The fault-free run played `distinct` sessions at once in `reference_s`; `sessions` take
    about that many times longer, so kills are spread over the whole run rather than bunched
    at its start (8 sessions of 8 cases: the reference's own length, as before).
    """
    return max(MIN_WINDOW_S, kills_each * SLOT_S, reference_s * sessions / max(distinct, 1))


def figures(result: Verdict, kills: dict[str, int]) -> list[str]:
    """The lines printed above the last one (`kills`: per part, as `kill_counts` gives)."""
    return [
        f"sessions completed: {result.completed}/{result.started}",
        f"turns lost: {result.lost}",
        f"duplicate replies: {result.duplicated}",
        f"steps executed more than once: {result.repeated_steps} of {result.steps}",
        f"workflows differing from the fault-free run: {result.differing}",
        f"kills: {result.kills} ({', '.join(f'{k} {n}' for k, n in kills.items())})",
        f"dead letters: {result.dlq}",
    ]
