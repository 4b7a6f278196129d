"""When a writer refreshes its keys' TTLs: once per window per session, not on every write.

A session's records live `ttl_s` (30 days) after its last activity. Refreshing every key with
an EXPIRE on every write cost about 16 commands a turn (docs/performance.md §23). Instead each
store remembers, in this process, when it last refreshed a session's group of keys, and asks
Redis to refresh them again only once `window_s` has passed: a key then lives at least
`ttl_s - window_s` after the session's last activity, and at most `ttl_s`.

A group is refreshed the first time this process writes it for a session, and again after
the window. Whatever the marks say, a key is given its TTL where it is made: every write that
can make a session key sees for free that it did (a first transcript entry, a counter at 1,
an XADD NOMKSTREAM that found no stream, a hash missing its mark field, a SET with EX), so a
key Valkey lost and a process made anew within its window never lives without a TTL
(tests/service/test_ttl_after_data_loss.py).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

# The window: an hour, or a tenth of a short TTL (tests and small deployments).
MAX_WINDOW_S = 3600.0


def window_for(ttl_s: int) -> float:
    """How long a refresh holds for keys that live `ttl_s`."""
    return min(MAX_WINDOW_S, ttl_s / 10)


class Freshness:
    """Which (session, group) this process refreshed within the window; bounded in size."""

    def __init__(
        self,
        window_s: float,
        max_entries: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window_s, self.max_entries, self.clock = window_s, max_entries, clock
        self._at: OrderedDict[tuple[str, str], float] = OrderedDict()

    def due(self, session_id: str, group: str) -> bool:
        """True when the group's TTLs should be refreshed with this write."""
        at = self._at.get((session_id, group))
        return at is None or self.clock() - at >= self.window_s

    def refreshed(self, session_id: str, group: str) -> None:
        """Record a refresh that Redis carried out (call it after the write succeeded)."""
        key = (session_id, group)
        self._at[key] = self.clock()
        self._at.move_to_end(key)
        while len(self._at) > self.max_entries:  # forgetting only makes a refresh due early
            self._at.popitem(last=False)
