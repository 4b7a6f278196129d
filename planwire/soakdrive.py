"""`planwire soak`'s sessions: scripted conversations, each turn at its pacer's slot.

A `Driver` runs workers that play the eval's conversations one after another (turns, nudges
until the summary, the confirmation, then the built workflow) until the time is up, and
tallies what a user would notice: turns answered, conversations completed, errors (a non-2xx
answer, a reply later than the timeout, a failed workflow) and lost turns (accepted, and
still unanswered at the end).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx

from planwire.client import SessionClient, StreamEvent
from planwire.evaluate import FINAL_EVENTS, MAX_NUDGES, NUDGE, Case
from planwire.soak import Pacer

SETTLE_S = 5.0  # after the last turn: time for a late reply to still count as answered


class TimeUp(Exception):
    """The soak (or a ramp step) is over: no new turn is posted."""


@dataclass
class Tally:
    """What all sessions did so far; `kept`: clients of sessions whose reply was late, left
    open so that a reply arriving before the end still counts as an answer."""

    turns: int = 0
    sessions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    kept: list[tuple[SessionClient, list[str]]] = field(default_factory=list)


def cycle(cases: list[Case], seed: int) -> Iterator[Case]:
    """Every case in turn, in a seeded order, for as long as asked."""
    order = list(cases)
    random.Random(seed).shuffle(order)
    return itertools.cycle(order)


@dataclass
class Conversation:
    """One session playing one case, each turn posted at its pacer slot, none after `until`."""

    client: SessionClient
    tally: Tally
    until: float
    pacer: Pacer | None  # None: as fast as replies come
    sent: list[str] = field(default_factory=list)

    async def say(self, text: str) -> StreamEvent:
        """Post one turn at its slot and wait for its reply."""
        if self.pacer is not None:
            await asyncio.sleep(self.pacer.slot(time.monotonic()) - time.monotonic())
        if time.monotonic() >= self.until:
            raise TimeUp
        turn_id = await self.client.send(text)
        self.sent.append(turn_id)
        reply = await self.client.wait_for(
            lambda e: e.type == "reply" and e.data.get("turn_id") == turn_id
        )
        self.tally.turns += 1
        return reply

    async def play(self, case: Case) -> None:
        """The eval's conversation, to its built workflow."""
        for text in case.turns:
            reply = await self.say(text)
        for _ in range(MAX_NUDGES):
            if reply.data.get("phase") == "confirming":
                break
            reply = await self.say(NUDGE)
        await self.say(case.confirm)
        final = await self.client.wait_for(lambda e: e.type in FINAL_EVENTS)
        if final.type == "workflow_completed":
            self.tally.sessions += 1
        else:
            self.tally.errors["workflow failed"] += 1


@dataclass
class Driver:
    """Plays conversations against one gateway and tallies what happened."""

    url: str
    cases: Iterator[Case]
    timeout_s: float
    tally: Tally = field(default_factory=Tally)

    def client(self) -> SessionClient:
        """A SessionClient that counts every answer that is not a 2xx as an error."""
        client = SessionClient(self.url, timeout_s=self.timeout_s)

        async def note(response: httpx.Response) -> None:
            if not response.is_success:
                self.tally.errors[f"http {response.status_code}"] += 1

        client.http.event_hooks["response"].append(note)
        return client

    async def converse(self, until: float, pacer: Pacer | None) -> None:
        """One conversation; what went wrong is counted, and a late reply's client kept open."""
        client = self.client()
        talk, kept = Conversation(client, self.tally, until, pacer), False
        try:
            await client.__aenter__()
            await talk.play(next(self.cases))
        except TimeUp:
            pass
        except TimeoutError:
            self.tally.errors["late reply"] += 1
            self.tally.kept.append((client, talk.sent))
            kept = True
        except httpx.HTTPStatusError:
            pass  # its status is counted already
        except Exception as exc:
            self.tally.errors[type(exc).__name__] += 1
        finally:
            if not kept:
                await client.__aexit__(None, None, None)

    async def worker(self, until: float, pacer: Pacer | None) -> None:
        """Conversations one after another until the time is up."""
        while time.monotonic() < until:
            await self.converse(until, pacer)

    async def run(self, sessions: int, seconds: float, pacer: Pacer | None = None) -> None:
        """`sessions` workers for `seconds`; each finishes the turn it is waiting on."""
        until = time.monotonic() + seconds
        await asyncio.gather(*(self.worker(until, pacer) for _ in range(sessions)))

    async def lost(self) -> int:
        """Turns accepted and never answered: checked on the kept clients after a last wait."""
        if self.tally.kept:
            await asyncio.sleep(SETTLE_S)
        lost = 0
        for client, sent in self.tally.kept:
            answered = {e.data.get("turn_id") for e in client.seen if e.type == "reply"}
            lost += sum(turn not in answered for turn in sent)
            await client.__aexit__(None, None, None)
        self.tally.kept.clear()
        return lost
