"""One blocking Redis read per gateway process for every open event stream.

A stream used to hold its own blocking `XREAD` (and so its own Redis connection) for as long
as the client stayed connected: enough clients took every connection. Now each stream reads
its backlog without blocking, then waits on an `asyncio.Event`; one task per process blocks
on a single `XREAD` over every watched stream and wakes the streams that got entries.

No entry is missed: a stream clears its event *before* reading, and the hub starts watching
a new stream key from the id the stream last read, so an entry added in between is found.

A new stream is watched at once. The hub reads on a connection of its own, and a new key
unblocks that read (`CLIENT UNBLOCK`), so the next read includes it. Without this, a new
conversation's first reply waited up to a whole block (250 ms) for the read already in
progress to time out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any, cast

from redis.asyncio import Redis
from redis.typing import KeyT, StreamIdT

from services.gateway.logic import is_stream_id
from shared.redis import text, text_map
from shared.tasks import alongside

log = logging.getLogger("planwire.gateway")


Entry = tuple[str, str, dict[str, Any]]  # stream id, event type, data


class Watch:
    """One open stream's wake-up signal, and the entries the shared read found for it."""

    def __init__(self, key: str) -> None:
        self.key, self.woken = key, asyncio.Event()
        self.handed: list[tuple[str, list[Entry]]] = []  # (the id they follow, entries)

    def take(self, after: str) -> list[Entry] | None:
        """The handed entries that follow `after` without a gap, or None when the stream must
        be read (nothing handed, or a batch that does not start at `after`).

        The shared read already fetched them: the stream need not read them again (one XREAD
        a wake-up instead of two)."""
        handed, self.handed = self.handed, []
        found: list[Entry] = []
        for follows, entries in handed:
            if follows != after:
                return None
            found.extend(entries)
            after = entries[-1][0]
        return found or None

    async def wait(self, timeout_s: float) -> bool:
        """True when woken, False after `timeout_s` with nothing new."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self.woken.wait()
                return True
        return False


class OutboxHub:
    """Fans one `XREAD BLOCK` out to every stream open on this process."""

    def __init__(self, redis: Redis, block_ms: int = 250, *, reader: Redis | None = None) -> None:
        """`reader`: a client holding one connection, for the blocking read alone; without
        it the read shares `redis`'s pool, and a new stream waits for the read under way."""
        self.redis, self.block_ms = redis, block_ms
        self.reader = reader
        self.reader_id: int | None = None  # the reader's connection, once known
        self.blocked = False  # a read is waiting on Redis now
        self.watches: dict[str, set[Watch]] = {}
        self.cursors: dict[str, str] = {}
        self.changed = asyncio.Event()

    @contextlib.asynccontextmanager
    async def watch(self, key: str, after: str) -> AsyncIterator[Watch]:
        """Be woken when `key` gets an entry after `after`, until the block exits.

        ValueError for an `after` Redis would refuse: every stream shares one read, and one
        bad cursor in it would fail that read for all of them."""
        if not is_stream_id(after):
            raise ValueError(f"not a stream id: {after[:50]!r}")
        watch = Watch(key)
        new = key not in self.watches
        if new:
            self.watches[key], self.cursors[key] = set(), after
        self.watches[key].add(watch)
        self.changed.set()
        if new and self.blocked and self.reader_id is not None:
            await self.redis.client_unblock(self.reader_id)  # read again, with this key
        try:
            yield watch
        finally:
            self.watches[key].discard(watch)
            if not self.watches[key]:
                del self.watches[key], self.cursors[key]

    async def run(self) -> None:
        """Read until cancelled; a failed read is logged and retried after a pause."""
        me = asyncio.current_task()
        while True:
            # redis-py can swallow a cancellation that lands while a blocked read returns;
            # the task still says it is being cancelled, so the reader stops all the same.
            if me is not None and me.cancelling():
                raise asyncio.CancelledError
            if not self.watches:
                self.changed.clear()
                await self.changed.wait()
                continue
            try:
                await self._read_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("shared outbox read failed")
                await asyncio.sleep(1.0)

    async def _read_once(self) -> None:
        # Every watched key in one call: their number is bounded by the stream caps.
        streams = cast("dict[KeyT, StreamIdT]", dict(self.cursors))
        reader = self.reader or self.redis
        if self.reader is not None and self.reader_id is None:
            self.reader_id = await self.reader.client_id()
        self.blocked = True
        try:
            reply: Any = await reader.xread(streams, count=100, block=self.block_ms)
        except Exception:
            self.reader_id = None  # maybe a new connection next time: ask again
            raise
        finally:
            self.blocked = False
        for raw_key, entries in reply or []:
            key = text(raw_key)
            if key in self.cursors and entries:
                follows, found = self.cursors[key], [_entry(e) for e in entries]
                self.cursors[key] = found[-1][0]
                for watch in self.watches.get(key, ()):
                    watch.handed.append((follows, found))
                    watch.woken.set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[OutboxHub]:
        """Run the reader for the lifetime of the app."""
        async with alongside(self.run()):
            yield self


def _entry(raw: Any) -> Entry:
    """One XREAD entry, `(id, {"type", "data"})`, as (id, type, decoded data)."""
    entry_id, fields = raw
    values = text_map(fields)  # the gateway writes both fields; a foreign entry reads empty
    return text(entry_id), values.get("type", ""), json.loads(values.get("data", "{}"))
