"""Where `planwire up` and `planwire demo` keep what must outlive them: one folder per user.

`PLANWIRE_DATA_DIR` names it; by default it is `planwire` under the user's data directory
(`$XDG_DATA_HOME`, else `~/.local/share`). Valkey keeps its append-only file there (sessions,
transcripts, saved workflows) and noida-db its log; Tansu keeps topics in memory only.

Two stacks on one folder would write one Valkey AOF from two servers, so a stack holds an
exclusive lock on the folder for as long as it runs; the kernel drops the lock when the
process dies, however it dies, so a crash never leaves a stale lock behind.

Valkey there requires a password (`valkey_password`), drawn once per folder and kept in it,
readable by its owner only: a stack on that folder again uses the same one, and no other
local user (or web page reaching loopback) can read or write the sessions.

Everything else that starts an embedded stack (tests, `planwire eval`, `bench`, `chaos`,
`load`) passes no data folder and keeps its data in a throwaway one beside its logs.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path

from planwire.procs import StackError

ENV = "PLANWIRE_DATA_DIR"
LOCK_NAME = "lock"
PASSWORD_NAME = "valkey-password"


def default_data_dir() -> Path:
    """`$PLANWIRE_DATA_DIR`, else `$XDG_DATA_HOME/planwire`, else `~/.local/share/planwire`."""
    if chosen := os.environ.get(ENV, "").strip():
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_DATA_HOME", "").strip() or Path.home() / ".local" / "share"
    return Path(base) / "planwire"


class DataLock:
    """An exclusive, non-blocking lock on a data folder, held until `release()`."""

    def __init__(self, folder: Path) -> None:
        """Create the folder if needed and take its lock, or say which process holds it."""
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / LOCK_NAME
        # Opened without O_TRUNC: a refused locker must not wipe the holder's pid.
        self.fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip() or "another"
            self.release()
            raise StackError(
                f"{folder} is in use by process {holder} (another `planwire up` or `demo`); "
                f"stop it, or set {ENV} to another folder"
            ) from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Drop the lock (closing the descriptor releases it); safe to call twice."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def valkey_password(folder: Path) -> str:
    """The folder's Valkey password: made on first use (32 random bytes, URL-safe, so it can
    sit in a Redis URL as it is), then read back on every later start.

    The file is created with mode 0600 and never readable by others; one left readable by
    hand is closed again rather than trusted as it is.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / PASSWORD_NAME
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        os.chmod(path, 0o600)
        if password := path.read_text().strip():
            return password
        raise StackError(f"{path} is empty; delete it and a new password is made") from None
    password = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w") as out:
        out.write(password + "\n")
    return password
