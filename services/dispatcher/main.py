"""Dispatcher service: the one wiring point (settings, the deadline sweep; topics in schemas/topology.py; `Deps` autowired)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from schemas import topology
from services.dispatcher import handlers
from services.dispatcher.sweeper import sweeping
from shared.budgets import step_timeout_s
from shared.service import Service
from shared.settings import InfraSettings


class Settings(InfraSettings):
    """Dispatcher settings: how long a step may take, how often it is requested, the sweep."""

    # Unset: derived from the model timeout (shared/budgets.py), so a step is re-requested
    # only after it had time for its model call with every retry.
    step_timeout_s: float | None = None
    model_timeout_s: float = 30.0  # PLANWIRE_MODEL_TIMEOUT_S, as the runners read it
    step_attempts: int = 3
    sweep_interval_s: float = 1.0
    # Longer than handling one due deadline takes; a crashed sweeper's claims free up after it.
    sweep_lease_s: float = 30.0
    sweep_batch: int = 100


settings = Settings()
service = Service.declared(topology.node("dispatcher"), settings, handlers=handlers)


def sweep(deps: handlers.Deps) -> AbstractAsyncContextManager[None]:
    """The deadline sweep, running as long as the service does."""
    return sweeping(
        deps,
        interval_s=settings.sweep_interval_s,
        lease_s=settings.sweep_lease_s,
        batch=settings.sweep_batch,
    )


app = service.app(
    running=sweep,
    step_timeout_s=settings.step_timeout_s or step_timeout_s(settings.model_timeout_s),
)

if __name__ == "__main__":
    service.serve(app)
