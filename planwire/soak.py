"""`planwire soak`, the pure part: pacing turns, the saturation ramp, memory growth, the verdict.

No I/O here. A soak plays scripted conversations at a steady rate for many minutes and
samples the resident memory (RSS) of every process of the stack; what a user would notice is
a turn never answered, an error, or a process whose memory keeps growing until it is killed.
Growth is read from a baseline sample (minute 5, once start-up caches and pools are warm) to
the last sample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RSS_GROWTH_LIMIT_PCT = 10.0  # the bar, from minute 5 to the end
BASELINE_S = 300.0  # minute 5
SATURATION_GAIN = 1.05  # the ramp stops once more sessions add less than 5% (as the bench)


@dataclass
class Pacer:
    """Start times `1 / rate` seconds apart, for turns taken by any number of sessions.

    A pacer that fell behind (every session busy) gives the next slots at once, but never
    more than `burst_s` worth of them: a stall is not followed by a flood.
    """

    rate: float
    burst_s: float = 1.0
    next_at: float | None = None

    def slot(self, now: float) -> float:
        """When the next turn may be posted (`now` or later)."""
        at = now if self.next_at is None else max(self.next_at, now - self.burst_s)
        self.next_at = at + 1 / self.rate
        return max(at, now)


def saturated(steps: list[tuple[int, float]]) -> bool:
    """Whether the ramp's last step (sessions, turns/s) added less than SATURATION_GAIN over
    the best step before it."""
    if len(steps) < 2:
        return False
    best_before = max(rate for _, rate in steps[:-1])
    return steps[-1][1] < best_before * SATURATION_GAIN


def best_step(steps: list[tuple[int, float]]) -> tuple[int, float]:
    """The ramp step with the most turns/s: the saturation rate and its session count."""
    return max(steps, key=lambda step: step[1])


@dataclass(frozen=True)
class Sample:
    """The stack at one moment of the soak: turns answered so far, RSS of each process (MB)."""

    at_s: float
    turns: int
    rss_mb: dict[str, float]


def baseline_s(minutes: float) -> float:
    """When growth is measured from: minute 5, or a sixth of a run shorter than 30 minutes."""
    return min(BASELINE_S, minutes * 60 / 6)


def growth_pct(before_mb: float, after_mb: float) -> float:
    """Growth from `before_mb` to `after_mb` in percent, one decimal (0 for no baseline)."""
    return round((after_mb - before_mb) / before_mb * 100, 1) if before_mb > 0 else 0.0


@dataclass(frozen=True)
class Growth:
    """One process's RSS at the baseline and at the end."""

    process: str
    baseline_mb: float
    end_mb: float

    @property
    def pct(self) -> float:
        """Growth from the baseline to the end, in percent."""
        return growth_pct(self.baseline_mb, self.end_mb)


def growth(samples: list[Sample], from_s: float) -> list[Growth]:
    """Each process's growth from the first sample at or after `from_s` to the last sample;
    a process missing from either sample (it died) is left out (the soak counts it an error)."""
    if not samples:
        return []
    base = next((s for s in samples if s.at_s >= from_s), samples[-1])
    end = samples[-1]
    return [Growth(p, base.rss_mb[p], mb) for p, mb in end.rss_mb.items() if p in base.rss_mb]


@dataclass
class SoakReport:
    """The figures `planwire soak` prints and writes with `--json`.

    `holders`: processes whose memory is the run's data (the broker keeps every record in
    memory, Valkey every session): their growth is shown, not held to the limit.
    """

    minutes: float
    rate: float
    rate_source: str
    turns: int
    sessions: int
    lost: int
    errors: dict[str, int]
    samples: list[Sample]
    holders: tuple[str, ...] = ()
    ramp: list[tuple[int, float]] = field(default_factory=list)

    @property
    def achieved(self) -> float:
        """Turns answered per second over the stated minutes (below `rate` when the sessions
        could not keep up)."""
        return round(self.turns / (self.minutes * 60), 2) if self.minutes else 0.0

    @property
    def baseline_s(self) -> float:
        """When growth is measured from."""
        return baseline_s(self.minutes)

    def growth(self) -> list[Growth]:
        """Every process's growth from the baseline to the end."""
        return growth(self.samples, self.baseline_s)

    def worst(self) -> Growth | None:
        """The planwire process (not a data holder) whose RSS grew most."""
        held = [g for g in self.growth() if g.process not in self.holders]
        return max(held, key=lambda g: g.pct, default=None)

    @property
    def ok(self) -> bool:
        """Exit status 0: no lost turn, no error, no planwire process past the growth limit."""
        worst = self.worst()
        grew = worst is not None and worst.pct >= RSS_GROWTH_LIMIT_PCT
        return self.lost == 0 and not sum(self.errors.values()) and not grew

    def last_line(self) -> str:
        """`soak: 30.0 min, 5400 turns, lost 0, errors 0, rss growth max 4.1% (annotator); ...`"""
        worst = self.worst()
        most = f"{worst.pct}% ({worst.process})" if worst else "n/a"
        held = ", ".join(
            f"{g.process} {g.pct:+}%" for g in self.growth() if g.process in self.holders
        )
        return (
            f"soak: {self.minutes:.1f} min, {self.turns} turns, lost {self.lost}, errors "
            f"{sum(self.errors.values())}, rss growth max {most}"
            + (f"; data holders {held}" if held else "")
        )

    def table(self) -> list[str]:
        """RSS per process at the baseline and at the end, with growth."""
        start, end = self.baseline_s / 60, self.samples[-1].at_s / 60 if self.samples else 0.0
        lines = [
            f"{'process':<16}{f'MB at {start:.1f} min':>16}{f'MB at {end:.1f} min':>16}  growth"
        ]
        for g in self.growth():
            note = "  (holds the run's data)" if g.process in self.holders else ""
            lines.append(
                f"{g.process:<16}{g.baseline_mb:>16.1f}{g.end_mb:>16.1f}  {g.pct:+}%{note}"
            )
        return lines

    def to_json(self) -> dict[str, Any]:
        """Everything, samples included, for `--json`."""
        worst = self.worst()
        return {
            "minutes": self.minutes,
            "rate_turns_per_s": self.rate,
            "rate_source": self.rate_source,
            "achieved_turns_per_s": self.achieved,
            "ramp": [{"sessions": n, "turns_per_s": r} for n, r in self.ramp],
            "turns": self.turns,
            "sessions_completed": self.sessions,
            "lost": self.lost,
            "errors": self.errors,
            "baseline_s": self.baseline_s,
            "growth": {
                g.process: {"baseline_mb": g.baseline_mb, "end_mb": g.end_mb, "pct": g.pct}
                for g in self.growth()
            },
            "holders": list(self.holders),
            "rss_growth_max_pct": worst.pct if worst else None,
            "rss_growth_max_process": worst.process if worst else None,
            "samples": [
                {"at_s": s.at_s, "turns": s.turns, "rss_mb": s.rss_mb} for s in self.samples
            ],
            "ok": self.ok,
        }
