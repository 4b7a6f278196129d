"""The artifacts, written by the step runners: every version of every node's output.

  pw:{sid}:artifact:<node_id>  list, one JSON per version (version = position, 1-based):
                               {"version", "node_id", "kind", "specialist", "content",
                                "plan_id", "attempt", "edited_by_user", "created_at"}.
                               The last element is current; old versions are kept.
  pw:{sid}:plan:produced:<plan_id>:<index>  string, the version a plan step's run appended,
                               written in the same script as the version: a step whose
                               completion was lost (a crash before its event) is answered
                               from here and never executed twice.

The dispatcher reads the last node's content (the summary) to finish the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from redis.asyncio import Redis

from schemas.plan import PlanNode
from shared.redis import RedisStore, session_key

WRITERS = {"ArtifactWriter": {"specialist"}}

# Append ARGV[1] (a JSON object without its version) as the next version; the version is
# spliced in here so two writers can never claim the same number. With KEYS[2] (a plan
# step's produced record) a step that already produced returns that version and appends
# nothing; otherwise the record is written with the version. Returns the version.
_APPEND_VERSION = """
if KEYS[2] then
  local produced = redis.call('GET', KEYS[2])
  if produced then return tonumber(produced) end
end
local version = redis.call('LLEN', KEYS[1]) + 1
redis.call('RPUSH', KEYS[1], '{"version":' .. version .. ',' .. string.sub(ARGV[1], 2))
redis.call('EXPIRE', KEYS[1], ARGV[2])
if KEYS[2] then redis.call('SET', KEYS[2], version, 'EX', ARGV[2]) end
return version
"""


@dataclass(frozen=True)
class Artifact:
    """The current version of one node's artifact."""

    node_id: str
    version: int
    kind: str
    specialist: str | None
    content: dict[str, Any]
    edited_by_user: bool = False

    @classmethod
    def from_json(cls, raw: str) -> Artifact:
        """Read a stored version."""
        data = json.loads(raw)
        return cls(
            data["node_id"],
            data["version"],
            data["kind"],
            data.get("specialist"),
            data["content"],
            data.get("edited_by_user", False),
        )


def _key(session_id: str, node_id: str) -> str:
    return session_key(session_id, "artifact", node_id)


async def current(redis: Redis, session_id: str, node_ids: list[str]) -> dict[str, Artifact]:
    """The current version of each node's artifact, for the nodes that have one."""
    async with redis.pipeline(transaction=False) as pipe:
        for node_id in node_ids:
            pipe.lindex(_key(session_id, node_id), -1)
        raw = await pipe.execute()
    return {
        node_id: Artifact.from_json(item)
        for node_id, item in zip(node_ids, raw, strict=False)
        if item
    }


async def versions(redis: Redis, session_id: str, node_id: str) -> list[dict[str, Any]]:
    """Every stored version of one node's artifact, oldest first (audits: `planwire chaos`)."""
    return [json.loads(raw) for raw in await redis.lrange(_key(session_id, node_id), 0, -1)]


def _produced_key(session_id: str, plan_id: str, index: int) -> str:
    return session_key(session_id, "plan", "produced", plan_id, str(index))


async def produced(redis: Redis, session_id: str, plan_id: str, index: int) -> int | None:
    """The artifact version step `index` of `plan_id` already produced, if it did."""
    version = await redis.get(_produced_key(session_id, plan_id, index))
    return None if version is None else int(version)


async def content(redis: Redis, session_id: str, node_id: str) -> dict[str, Any]:
    """The current content of a node's artifact; {} if it has none."""
    found = await current(redis, session_id, [node_id])
    return found[node_id].content if node_id in found else {}


class ArtifactWriter(RedisStore):
    """Appends versions of one session's artifacts."""

    async def append(
        self,
        session_id: str,
        node: PlanNode,
        kind: str,
        content: dict[str, Any],
        *,
        plan_id: str,
        attempt: int | None,
        edited_by_user: bool = False,
        step: int | None = None,
    ) -> int:
        """Append a new version of the node's artifact (attempt None for a user edit); returns its version."""
        body = {
            "node_id": node.node_id,
            "kind": kind,
            "specialist": node.specialist,
            "content": content,
            "plan_id": plan_id,
            "attempt": attempt,
            "edited_by_user": edited_by_user,
            "created_at": datetime.now(UTC).isoformat(),
        }
        keys = [_key(session_id, node.node_id)]
        if step is not None:  # a plan step's output: at most once per step of the plan
            keys.append(_produced_key(session_id, plan_id, step))
        return int(
            await self.redis.eval(_APPEND_VERSION, len(keys), *keys, json.dumps(body), self.ttl_s)
        )
