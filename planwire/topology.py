"""What the embedded stack runs: the service processes and the step runners it makes topics for.

Kept as plain data so adding a service is one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from catalogue import load_catalogue
from schemas.plan import FIXED_RUNNERS

# Step runners whose `<runner>.run-step.v1` topics the stack creates up front (the
# embedded broker cannot add partitions later, so topics must exist before first use).
RUNNERS: list[str] = [*load_catalogue().ids, *FIXED_RUNNERS]


@dataclass(frozen=True)
class ServiceSpec:
    """One service process: `python -m <module> *args`, with extra environment variables."""

    name: str
    module: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


def embedded_services(settings: Any = None) -> list[ServiceSpec]:
    """The services `planwire up` starts, in start order.

    `settings` (model settings) is accepted so entries can depend on it later.
    """
    return [
        ServiceSpec("gateway", "services.gateway.main"),
        ServiceSpec("trimmer", "services.trimmer.main"),
        ServiceSpec("annotator", "services.annotator.main"),
        ServiceSpec("conversation", "services.conversation.main"),
        ServiceSpec("classifier", "services.classifier.main"),
        ServiceSpec("planner", "services.planner.main"),
        ServiceSpec("dispatcher", "services.dispatcher.main"),
        # One process serves every runner here to save memory; compose and k8s run one per id.
        ServiceSpec("specialist", "services.specialist.main", ("--all",)),
    ]


def parse_services(text: str) -> list[ServiceSpec]:
    """Services from `name=module[,name=module...]`; a bare module is named by its package.

    Used by the hidden `planwire up --services` option (tests run fakes this way).
    """
    specs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, module = item.rpartition("=")
        specs.append(ServiceSpec(name or _default_name(module), module))
    return specs


def _default_name(module: str) -> str:
    """`services.gateway.main` -> `gateway`; `tests.support.fake_service` -> `fake_service`."""
    parts = module.split(".")
    return parts[-2] if parts[-1] == "main" and len(parts) > 1 else parts[-1]
