"""Child-process helpers for the embedded stack: free ports, logged children, clean stops.

Every child runs in its own session (process group), so one signal to the group reaches
anything the child spawned too, and a Ctrl-C in the terminal reaches only `planwire up`,
which then stops the children in order.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

STOP_WAIT_S = 10.0
# A stop of a whole stack waits up to STOP_WAIT_S for the services, then as long for
# Valkey and the broker; past this the stop is hung, not slow.
STOP_DEADLINE_S = 2 * STOP_WAIT_S + 5
_deadline_armed = threading.Event()


class StackError(RuntimeError):
    """The embedded stack could not start; the message says which part and why."""


def free_ports(count: int) -> list[int]:
    """`count` distinct free loopback ports (all sockets held open while picking)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid still runs; zombies count as gone (they run nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    # The state letter follows the parenthesised command name, which may contain spaces.
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _live_with(field: int, value: int) -> list[int]:
    """Live pids whose /proc stat field (after the command name: 1 parent, 2 process group)
    equals `value`; zombies count as gone."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[field]) == value and fields[0] not in ("Z", "X"):
                    found.append(int(entry.name))
    return found


def child_pids(parent: int) -> list[int]:
    """Live pids whose parent is `parent`, read from /proc."""
    return _live_with(1, parent)


def stop_within(deadline_s: float = STOP_DEADLINE_S) -> None:
    """Bound this process's own stop: if it still runs `deadline_s` from now, print every
    thread's stack to stderr (where the stop hung), SIGKILL each child's process group and
    exit with 130, as after Ctrl-C. A stop that hangs must not keep a CI job, a terminal or
    a pod's grace period waiting. Armed once; later calls change nothing."""
    if _deadline_armed.is_set():
        return
    _deadline_armed.set()

    def cut() -> None:
        sys.stderr.write(
            f"planwire: stopping took over {deadline_s:.0f} s; where each thread was, "
            "then every child is killed\n"
        )
        with contextlib.suppress(Exception):
            faulthandler.dump_traceback(all_threads=True)
        for pid in child_pids(os.getpid()):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # each child leads its own group
        os._exit(130)

    timer = threading.Timer(deadline_s, cut)
    timer.name, timer.daemon = "stop-deadline", True
    timer.start()


def group_pids(pgid: int) -> list[int]:
    """Live pids in a process group, read from /proc (children may outlive their leader)."""
    return _live_with(2, pgid)


@dataclass
class Child:
    """One child process, its argv, and the log file its stdout and stderr go to."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] | None = None
    cwd: str | None = None
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def pid(self) -> int:
        """The child's pid (also its process-group id)."""
        assert self.popen is not None, f"{self.name} was never started"
        return self.popen.pid

    def start(self) -> Child:
        """Spawn the child in its own session with output appended to its log."""
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    @property
    def returncode(self) -> int | None:
        """The exit status once the child has exited, else None."""
        return self.popen.returncode if self.popen is not None else None

    def running(self) -> bool:
        """True while the child has not exited."""
        return self.popen is not None and self.popen.poll() is None

    def tail(self, lines: int = 30) -> str:
        """The last lines of the child's log, for error messages."""
        try:
            text = self.log.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(empty log)"

    def check(self) -> None:
        """Raise StackError with the log tail if the child has already exited."""
        if self.popen is not None and self.popen.poll() is not None:
            raise StackError(
                f"{self.name} exited with status {self.popen.returncode}; log {self.log}:\n{self.tail()}"
            )

    def signal_group(self, sig: int) -> None:
        """Send a signal to the child's whole process group, if any of it is left."""
        if self.popen is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)


def stop_children(children: list[Child], wait_s: float = STOP_WAIT_S) -> None:
    """SIGTERM every child's group, wait up to `wait_s` in total, then SIGKILL what is left."""
    started = [c for c in children if c.popen is not None]
    for child in started:
        child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    for child in started:
        with contextlib.suppress(subprocess.TimeoutExpired):
            assert child.popen is not None  # `started` holds only spawned children
            child.popen.wait(max(0.0, deadline - time.monotonic()))
    for child in started:
        _kill_rest(child, deadline)


def _kill_rest(child: Child, deadline: float) -> None:
    """SIGKILL a child and any grandchildren still in its group, then reap the child."""
    while group_pids(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # grandchildren got the SIGTERM too: give them the same grace
    if child.running() or group_pids(child.pid):
        child.signal_group(signal.SIGKILL)
    if child.popen is not None:
        child.popen.wait()
