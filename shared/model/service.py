"""The service kit for a service that calls a model: its settings and its model port.

Kept apart from `shared.service` so a model-free service (the dispatcher) never imports the
model; see `tests/unit/test_dispatcher_imports.py`.
"""

from __future__ import annotations

from shared.model.factory import ModelSettings
from shared.model.port import ModelPort
from shared.model.usage import recorded_model
from shared.service import Service
from shared.settings import InfraSettings


class ModelServiceSettings(InfraSettings, ModelSettings):
    """The settings of a service that calls a model (its own extend these)."""


class ModelService(Service):
    """A service whose `Deps` may ask for the `ModelPort`: the usage-recording port, which
    charges every call's tokens to the event's session."""

    default_settings = ModelServiceSettings
    default_model = staticmethod(recorded_model)
    model_port = ModelPort
