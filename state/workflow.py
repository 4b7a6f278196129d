"""The saved workflow, written by the save step.

pw:{sid}:workflow         string, the saved workflow id
pw:{sid}:workflow:doc     string, the saved workflow document (JSON)
pw:workflow:{<wf id>}     string, the session owning a workflow (global lookup for
                          GET /v1/workflows/{id}; written after the session keys)
"""

from __future__ import annotations

import json
from typing import Any

from opentelemetry import trace
from redis.asyncio import Redis

from shared.redis import RedisStore, session_key, text_or_none

WRITERS = {"WorkflowWriter": {"specialist"}}
_tracer = trace.get_tracer("planwire.state")

# The document and the session's pointer to it change together.
_SAVE = """
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1
"""


def index_key(workflow_id: str) -> str:
    """Global lookup from a workflow id to its session (hash-tagged by the workflow id)."""
    return f"pw:workflow:{{{workflow_id}}}"


def _keys(session_id: str) -> tuple[str, str]:
    return session_key(session_id, "workflow"), session_key(session_id, "workflow", "doc")


async def workflow_id(redis: Redis, session_id: str) -> str | None:
    """The id of the session's saved workflow, once saved."""
    return text_or_none(await redis.get(_keys(session_id)[0]))


async def find(redis: Redis, workflow_id: str) -> tuple[str, dict[str, Any]] | None:
    """The saved workflow document and its owning session, or None."""
    session_id = text_or_none(await redis.get(index_key(workflow_id)))
    if session_id is None:
        return None
    raw = await redis.get(_keys(session_id)[1])
    return (session_id, json.loads(raw)) if raw else None


class WorkflowWriter(RedisStore):
    """Saves one session's workflow document."""

    async def save(self, session_id: str, document: dict[str, Any]) -> None:
        """Persist the document and point the session at it; then the global lookup."""
        workflow_id = document["workflow_id"]
        # A span of its own: the end of the trace a confirming request starts.
        with _tracer.start_as_current_span(
            "save workflow", attributes={"planwire.workflow_id": workflow_id}
        ):
            args = (workflow_id, json.dumps(document), self.ttl_s)
            await self.redis.eval(_SAVE, 2, *_keys(session_id), *args)
            await self.redis.set(index_key(workflow_id), session_id, ex=self.ttl_s)
