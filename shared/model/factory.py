"""Choose the model backend from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.model.openai_model import OpenAIModel
from shared.model.port import HeuristicModel, ModelPort, SimulatedLatencyModel

if TYPE_CHECKING:
    from shared.model.local import LocalModelServer


class ModelChoice(Protocol):
    """The settings `build_model` reads (every service's settings, or `ModelSettings`)."""

    @property
    def model_backend(self) -> str: ...
    @property
    def model_base_url(self) -> str | None: ...
    @property
    def model_name(self) -> str: ...
    @property
    def model_api_key(self) -> SecretStr | str: ...
    @property
    def model_timeout_s(self) -> float: ...


class ModelSettings(BaseSettings):
    """Which model answers structured calls (`PLANWIRE_*` environment variables).

    PLANWIRE_MODEL picks the backend: "heuristic" (rules, no language model; the default),
    "openai" (any OpenAI-compatible server at PLANWIRE_MODEL_BASE_URL), or "local"
    (SmolLM2 in-process, or an already running local server when a base URL is given).
    """

    model_config = SettingsConfigDict(
        env_prefix="PLANWIRE_", extra="ignore", protected_namespaces=()
    )

    model: Literal["heuristic", "openai", "local"] = "heuristic"
    model_base_url: str | None = None
    model_name: str = "smollm2-135m"
    model_api_key: SecretStr = SecretStr("not-needed")
    model_timeout_s: float = 30.0
    # Measurement aids (planwire bench, planwire eval --compare): the heuristic backend
    # charges each call's prompt at the tokenizer-free estimate (shared/model/tokens.py),
    # and every call may wait a simulated model latency first.
    model_estimate_tokens: bool = False
    model_latency_ms: float = Field(default=0.0, ge=0)

    @property
    def model_backend(self) -> str:
        """The backend name, under the attribute `build_model` reads."""
        return self.model


class _LocalOpenAIModel(OpenAIModel):
    """The OpenAI backend against a local server it started and must stop."""

    def __init__(self, server: LocalModelServer, **kwargs: Any) -> None:
        super().__init__(base_url=server.start(), **kwargs)
        self.server = server

    async def aclose(self) -> None:
        """Close connections, then stop the server."""
        await super().aclose()
        self.server.stop()


def build_model(settings: ModelChoice) -> ModelPort:
    """Build the backend named by `settings.model_backend`.

    `settings` needs model_backend, model_base_url, model_name, model_api_key (str or
    SecretStr) and model_timeout_s. A "local" backend without a base URL starts SmolLM2 in
    this process (about a second) and stops it on `aclose()`.
    `model_estimate_tokens` and `model_latency_ms`, when the settings have them (ModelSettings
    does), make the heuristic backend charge estimated tokens and any backend wait first.
    """
    model = _backend(settings)
    latency_ms = float(getattr(settings, "model_latency_ms", 0.0) or 0.0)
    return SimulatedLatencyModel(model, latency_ms / 1000) if latency_ms > 0 else model


def _backend(settings: ModelChoice) -> ModelPort:
    """The backend itself (see `build_model`)."""
    backend = settings.model_backend
    if backend == "heuristic":
        return HeuristicModel(
            estimate_tokens=bool(getattr(settings, "model_estimate_tokens", False))
        )
    key = settings.model_api_key
    common: dict[str, Any] = {
        "model": settings.model_name,
        "api_key": key.get_secret_value() if isinstance(key, SecretStr) else str(key),
        "timeout_s": settings.model_timeout_s,
    }
    if backend == "openai" or (backend == "local" and settings.model_base_url):
        return OpenAIModel(base_url=settings.model_base_url, **common)
    if backend == "local":
        from shared.model.local import LocalModelServer  # late: keeps `-m shared.model.local` clean

        return _LocalOpenAIModel(LocalModelServer(alias=settings.model_name), **common)
    raise ValueError(f"unknown model backend {backend!r}: use heuristic, openai or local")
