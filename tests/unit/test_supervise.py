"""`planwire up`'s supervision: when a part that exits is started again, and what is said."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from planwire.procs import StackError
from planwire.supervise import Backoff, Supervisor


def test_the_wait_doubles_from_half_a_second_to_ten_while_a_part_keeps_dying():
    backoff = Backoff(started=0.0)
    waits = []
    now = 0.0
    for _ in range(7):
        now += 1.0  # dies a second after each start
        waits.append(backoff.after_exit(now))
        backoff.started = now + waits[-1]
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_part_that_ran_a_stable_minute_is_restarted_after_half_a_second_again():
    backoff = Backoff(started=0.0)
    for now in (1.0, 2.0, 3.0):
        backoff.after_exit(now)
    backoff.started = 3.0
    assert backoff.after_exit(3.0 + 61.0) == 0.5


@dataclass
class FakeChild:
    """A part that is running or not; `start()` brings it back under a new pid."""

    name: str
    pid: int
    alive: bool = True
    returncode: int | None = None
    log: Path = Path("/logs/x.log")

    def running(self) -> bool:
        return self.alive

    def die(self) -> None:
        self.alive, self.returncode = False, -9

    def start(self) -> None:
        self.alive, self.returncode, self.pid = True, None, self.pid + 100


@dataclass
class FakeStack:
    """What the supervisor uses of an EmbeddedStack."""

    log_dir: Path
    infra: list[FakeChild] = field(default_factory=list)
    services: list[FakeChild] = field(default_factory=list)
    data_dir: Path = Path("/data")
    broker: str = "tansu"
    respawned: list[str] = field(default_factory=list)

    @property
    def pids(self) -> list[int]:
        return [c.pid for c in [*self.infra, *self.services]]

    def restartable(self, name: str) -> bool:
        return name != self.broker

    def respawn(self, name: str) -> None:
        self.respawned.append(name)
        next(c for c in self.services + self.infra if c.name == name).start()


@pytest.fixture
def stack(tmp_path) -> FakeStack:
    return FakeStack(
        tmp_path,
        infra=[FakeChild("tansu", 1), FakeChild("valkey", 2)],
        services=[FakeChild("gateway", 3), FakeChild("annotator", 4)],
    )


def test_an_exited_service_is_started_again_after_its_wait_and_both_are_said(stack):
    said: list[str] = []
    now = [10.0]
    supervisor = Supervisor(stack, said.append, clock=lambda: now[0])  # type: ignore[arg-type]
    stack.services[1].die()
    supervisor.check()
    now[0] += 0.4
    supervisor.check()
    assert stack.respawned == [] and said == [
        "restart: annotator exited (-9); starting it again in 0.5 s; log /logs/x.log"
    ]
    now[0] += 0.1
    supervisor.check()
    assert (
        stack.respawned == ["annotator"]
        and said[-1] == "restart: annotator started again (pid 104)"
    )
    assert (stack.log_dir / "pids").read_text().split() == ["1", "2", "3", "104"]


def test_valkey_is_started_again_but_the_broker_exiting_stops_the_stack(stack):
    now = [0.0]
    supervisor = Supervisor(stack, lambda _line: None, clock=lambda: now[0])  # type: ignore[arg-type]
    stack.infra[1].die()
    supervisor.check()
    now[0] += 0.5
    supervisor.check()
    assert stack.respawned == ["valkey"]
    stack.infra[0].die()
    with pytest.raises(StackError, match=r"tansu exited .*every topic.*kept in /data"):
        supervisor.check()
