"""Step runtime: the one wiring point. `python -m services.specialist.main gmail slack` serves
those runners; `--all` serves every catalogue id plus composer, save and summarizer. The
runners are chosen by the caller (`create_app(runners)`), never read at import.

Deployed per id, each runner consumes its own command topic in its own consumer group
`specialist.<id>`, so it deploys and scales on its own. `--all` (the embedded stack, one
process) reads every runner topic through one consumer (group `specialist.all-0`; more with
`PLANWIRE_ALL_RUNNER_CONSUMERS`, groups `specialist.all-<k>`), whose lanes run several sessions'
steps at once (`PLANWIRE_KEY_CONCURRENCY`).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from faststream.asgi import AsgiFastStream

from catalog import Catalogue, load_catalogue
from schemas import topology
from schemas.plan import RunStep
from services.specialist import handlers
from services.specialist.runners import ALL, select_runners
from shared.model.service import ModelService, ModelServiceSettings


class Settings(ModelServiceSettings):
    """Step runtime settings; small session timeouts let a restarted runner take over sooner."""

    consumer_session_timeout_ms: int = 10_000
    consumer_heartbeat_ms: int = 3_000
    # Every runner polls on its own; with `--all` that is 44 consumers. Measured idle on the
    # embedded broker: at 5 ms the process and Tansu burn 60% + 70% of a core, at 100 ms
    # 18% + 32%, for at most 0.1 s more per step. Unset: the shared fetch_max_wait_ms.
    runner_fetch_max_wait_ms: int | None = None
    specialist_delay_s: float = 0.0  # test-only: delay before each step runs
    # With --all: how many consumers share the runners' topics. One is enough: its lanes run
    # 8 sessions' steps at once, and each more consumer polls and heartbeats on its own
    # (docs/performance.md section 18: 8 consumers cost an idle stack 1.6 points of a core).
    all_runner_consumers: int = 1


settings = Settings()
catalogue = load_catalogue()
service = ModelService.declared(
    topology.node("specialist"),
    settings,
    handlers=handlers,
    provides={Catalogue: load_catalogue},
)
broker = service.broker


def subscribe(runner: str, *more: str, group: str | None = None) -> Any:
    """The runner's subscriber: its own command topic, its own consumer group.

    With more runners, one consumer (in `group`) reads all their topics.
    """
    options: dict[str, Any] = {
        "session_timeout_ms": settings.consumer_session_timeout_ms,
        "heartbeat_interval_ms": settings.consumer_heartbeat_ms,
    }
    if settings.runner_fetch_max_wait_ms is not None:
        options["fetch_max_wait_ms"] = settings.runner_fetch_max_wait_ms
    topics = (RunStep.topic_for(r) for r in (runner, *more))
    return service.subscribe(
        handlers.on_run_step, *topics, group=group or f"specialist.{runner}", **options
    )


def create_app(runners: list[str], *, shared_consumers: bool = False) -> AsgiFastStream:
    """The runtime serving `runners`: each in its own consumer group, or (`shared_consumers`,
    the embedded `--all` process) a few consumers sharing them all.
    """
    service.description = topology.node("specialist").description.format(runners=", ".join(runners))
    app = service.app()

    @app.after_startup
    async def start_runners() -> None:
        """Join every runner's consumer group at once, after the broker connected.

        The broker starts its subscribers one after another, and each group join takes seconds
        on the embedded broker: with `--all` that would be minutes before the last runner serves.
        """
        if shared_consumers:
            # One consumer for the lot (more if asked): 44 idle consumers polling the embedded
            # broker cost most of a core (measured); its lanes run several sessions' steps at once.
            shards = [
                runners[i :: settings.all_runner_consumers]
                for i in range(settings.all_runner_consumers)
            ]
            await asyncio.gather(
                *(
                    subscribe(*shard, group=f"specialist.all-{i}").start()
                    for i, shard in enumerate(shards)
                    if shard
                )
            )
            return
        await asyncio.gather(*(subscribe(runner).start() for runner in runners))

    return app


if __name__ == "__main__":
    chosen = sys.argv[1:]
    service.serve(create_app(select_runners(chosen, catalogue.ids), shared_consumers=ALL in chosen))
