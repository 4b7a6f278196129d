"""Choose the model backend from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.model.chaos import ChaosModel
from shared.model.cooldown import CoolDownModel
from shared.model.openai_model import OpenAIModel
from shared.model.port import HeuristicModel, ModelPort, SimulatedLatencyModel
from shared.model.streaming import SimulatedStreamingModel

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
    "openai" (any OpenAI-compatible server at PLANWIRE_MODEL_BASE_URL), "local"
    (SmolLM2 in-process, or an already running local server when a base URL is given), or
    "chaos" (PLANWIRE_CHAOS_INNER's answers, spoiled on a seeded share of calls: a test of
    the guarantees, never for users; shared/model/chaos.py).
    """

    model_config = SettingsConfigDict(
        env_prefix="PLANWIRE_", extra="ignore", protected_namespaces=()
    )

    model: Literal["heuristic", "openai", "local", "chaos"] = "heuristic"
    model_base_url: str | None = None
    # Whether prompts invite claims beyond the required answer (the annotator's links, values
    # and conditions, docs/understanding.md): each costs prompt and completion tokens, and a
    # 135M local model cannot judge them at ~7 ms a token. Unset: every backend but the local
    # model.
    model_extra_claims: bool | None = None
    model_name: str = "smollm2-135m"
    model_api_key: SecretStr = SecretStr("not-needed")
    model_timeout_s: float = 30.0
    # After two failed calls in a row a role answers from rules for this long (0: never).
    model_cooldown_s: float = 30.0
    chaos_inner: Literal["heuristic", "openai", "local"] = "heuristic"
    chaos_rate: float = Field(0.3, ge=0.0, le=1.0)
    chaos_seed: int = 0
    # A chaos "timeout" waits this long (at most the model timeout) before it fails.
    chaos_delay_s: float = 1.0
    # Measurement aids (planwire bench, planwire eval --compare): the heuristic backend
    # charges each call's prompt at the tokenizer-free estimate (shared/model/tokens.py),
    # and every call may wait a simulated model latency first.
    model_estimate_tokens: bool = False
    model_latency_ms: float = Field(default=0.0, ge=0)
    # A streamed reply's first piece after this long and each next one after the other
    # (planwire bench --model-first-token-ms/--model-token-ms; shared/model/streaming.py).
    model_first_token_ms: float = Field(default=0.0, ge=0)
    model_token_ms: float = Field(default=0.0, ge=0)

    @model_validator(mode="after")
    def _resolve_claims(self) -> ModelSettings:
        if self.model_extra_claims is None:
            local = self.model == "local" or (self.model == "chaos" and self.chaos_inner == "local")
            self.model_extra_claims = not local
        return self

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
    SecretStr) and model_timeout_s; the cool-down, chaos and measurement fields of
    `ModelSettings` are read when present. A "local" backend without a base URL starts
    SmolLM2 in this process (about a second) and stops it on `aclose()`. Every backend but
    the rules gets the per-role cool-down (shared/model/cooldown.py).
    `model_estimate_tokens` and `model_latency_ms` make the heuristic backend charge
    estimated tokens and any backend wait first; `model_first_token_ms`/`model_token_ms`
    write a streamed reply out at that pace (shared/model/streaming.py).
    """
    model = _with_cooldown(settings)
    first_ms = float(getattr(settings, "model_first_token_ms", 0.0) or 0.0)
    token_ms = float(getattr(settings, "model_token_ms", 0.0) or 0.0)
    if first_ms > 0 or token_ms > 0:
        model = SimulatedStreamingModel(model, first_ms / 1000, token_ms / 1000)
    latency_ms = float(getattr(settings, "model_latency_ms", 0.0) or 0.0)
    return SimulatedLatencyModel(model, latency_ms / 1000) if latency_ms > 0 else model


def _with_cooldown(settings: ModelChoice) -> ModelPort:
    """The backend, wrapped in chaos when asked and in the cool-down unless it is the rules."""
    backend = settings.model_backend
    if backend == "heuristic":
        return _backend(backend, settings)
    if backend == "chaos":
        port: ModelPort = ChaosModel(
            _backend(getattr(settings, "chaos_inner", "heuristic"), settings),
            rate=getattr(settings, "chaos_rate", 0.3),
            seed=getattr(settings, "chaos_seed", 0),
            delay_s=min(getattr(settings, "chaos_delay_s", 1.0), settings.model_timeout_s),
        )
    else:
        port = _backend(backend, settings)
    return CoolDownModel(port, getattr(settings, "model_cooldown_s", 30.0))


def _backend(backend: str, settings: ModelChoice) -> ModelPort:
    """One plain backend (no cool-down, no chaos)."""
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
    raise ValueError(f"unknown model backend {backend!r}: use heuristic, openai, local or chaos")
