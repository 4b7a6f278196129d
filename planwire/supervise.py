"""`planwire up` keeps its stack running: a part that exits is started again, with backoff.

Services, Valkey (its AOF keeps every acknowledged write) and the local model are started
again with the same command, port and log, after 0.5 s, then 1, 2, 4 ... up to 10 s while
the part keeps dying, and 0.5 s again once it has run for a stable minute. Each exit and
each restart is printed on stderr. The broker is not started again: neither embedded
broker survives a kill whole (`planwire.stack.KILL_LOSES`), so its exit stops the stack
with an error, and `planwire up` started again finds the sessions and saved workflows
where it left them (planwire/datadir.py).

Nothing here runs once `supervise` has returned or raised: the caller stops the stack
after it, so a Ctrl-C never races a restart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from planwire.procs import Child, StackError

if TYPE_CHECKING:
    from planwire.stack import EmbeddedStack

# How often exits are looked for: a killed service is noticed within a tenth of a second.
POLL_S = 0.1


@dataclass
class Backoff:
    """The waits before restarting one part, doubling while it keeps dying."""

    first_s: float = 0.5
    most_s: float = 10.0
    stable_s: float = 60.0  # a part that ran this long is healthy again: back to `first_s`
    started: float = 0.0  # when the part was last started
    delay_s: float = 0.0  # the last wait chosen; 0 before the first exit

    def after_exit(self, now: float) -> float:
        """The wait before starting again a part that exited at `now`."""
        stable = now - self.started >= self.stable_s
        if stable or not self.delay_s:
            self.delay_s = self.first_s
        else:
            self.delay_s = min(self.delay_s * 2, self.most_s)
        return self.delay_s


@dataclass
class Supervisor:
    """Watches every part of a started stack and starts again the ones that exit."""

    stack: EmbeddedStack
    say: Callable[[str], None]
    clock: Callable[[], float] = time.monotonic
    backoffs: dict[str, Backoff] = field(default_factory=dict)
    due: dict[str, float] = field(default_factory=dict)  # exited part -> when to start it

    def check(self) -> None:
        """One round: note the parts that exited, start those whose wait is over."""
        now = self.clock()
        for child in [*self.stack.infra, *self.stack.services]:
            if child.running():
                continue
            if child.name not in self.due:
                self._exited(child, now)
            elif now >= self.due[child.name]:
                self._start(child, now)

    def _exited(self, child: Child, now: float) -> None:
        """Schedule the restart of a part that has just exited (the broker: give up)."""
        if not self.stack.restartable(child.name):
            raise StackError(
                f"{child.name} exited ({child.returncode}); log {child.log}. It is not started "
                f"again: a restart loses {_loses(child.name)}. Start planwire up again: "
                f"sessions and saved workflows are kept in {self.stack.data_dir}"
            )
        backoff = self.backoffs.setdefault(child.name, Backoff(started=now))
        wait = backoff.after_exit(now)
        self.due[child.name] = now + wait
        self.say(
            f"restart: {child.name} exited ({child.returncode}); starting it again in "
            f"{wait:g} s; log {child.log}"
        )

    def _start(self, child: Child, now: float) -> None:
        """Start an exited part again and note when, for the next backoff."""
        del self.due[child.name]
        self.stack.respawn(child.name)
        self.backoffs[child.name].started = now
        record_pids(self.stack)
        self.say(f"restart: {child.name} started again (pid {child.pid})")


def supervise(stack: EmbeddedStack, say: Callable[[str], None]) -> None:
    """Keep the stack's parts running until a signal interrupts (or the broker exits)."""
    supervisor = Supervisor(stack, say)
    for child in [*stack.infra, *stack.services]:
        supervisor.backoffs[child.name] = Backoff(started=supervisor.clock())
    while True:
        time.sleep(POLL_S)
        supervisor.check()


def record_pids(stack: EmbeddedStack) -> str:
    """Write the running parts' pids to `<logs>/pids` (a restart changes them); returns them."""
    pids = " ".join(map(str, stack.pids))
    (stack.log_dir / "pids").write_text(pids + "\n")
    return pids


def _loses(name: str) -> str:
    """What a restart of the part `name` would lose (the embedded brokers only)."""
    from planwire.stack import KILL_LOSES

    return KILL_LOSES.get(name, "its data")
