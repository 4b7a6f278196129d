"""Every model role's tokens land in the session's usage, in total and per role."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest_asyncio
from redis.asyncio import Redis

from schemas.plan import WorkflowCompleted
from services.gateway.store import SessionStore
from shared.model import ModelResult
from tests.support.inmemory import TTL, Services

CASE = Path(__file__).resolve().parents[3] / "shared" / "eval" / "cases" / "support-triage.json"


class CountingModel:
    """Answers with the caller's fallback and charges made-up tokens, tallied per role."""

    name = model = "counting"

    def __init__(self) -> None:
        self.tally: dict[str, dict[str, int]] = defaultdict(
            lambda: {"prompt_tokens": 0, "completion_tokens": 0}
        )

    async def structured(
        self,
        role: str,
        messages: list[dict],
        schema: dict,
        *,
        fallback: Callable[[], dict],
        **_options,
    ) -> ModelResult:
        prompt, completion = 1 + sum(len(m["content"]) for m in messages) // 4, 3 + len(role)
        self.tally[role]["prompt_tokens"] += prompt
        self.tally[role]["completion_tokens"] += completion
        return ModelResult(fallback(), "ok", prompt, completion, 0.0)

    async def aclose(self) -> None:
        pass


@pytest_asyncio.fixture
async def redis(redis_url):
    client = Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_every_model_role_is_charged_to_the_session(redis):
    model = CountingModel()
    services = Services(redis, model)
    end = await services.play(json.loads(CASE.read_text()))
    assert isinstance(end, WorkflowCompleted), end
    usage = (await SessionStore(redis, TTL).view(end.session_id))["usage"]
    roles = set(model.tally)
    assert {"annotator", "conversation", "classifier", "planner"} <= roles
    assert any(role.startswith("specialist.") for role in roles), roles
    assert usage["by_role"] == model.tally
    assert usage["prompt_tokens"] == sum(t["prompt_tokens"] for t in model.tally.values())
    assert usage["completion_tokens"] == sum(t["completion_tokens"] for t in model.tally.values())
    # The counts live as long as the session, not forever.
    assert 0 < await redis.ttl(f"pw:{{{end.session_id}}}:usage") <= 30 * 24 * 3600
