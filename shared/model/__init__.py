"""The model port: structured JSON from a language model, or from rules when it fails.

Code owns the structure: every backend returns a schema-valid object or the caller's
fallback, never an exception for a model problem. The local server lives in
`shared.model.local` and is not imported here, so `python -m shared.model.local` runs cleanly.
"""

from shared.model.factory import ModelSettings, build_model
from shared.model.openai_model import OpenAIModel
from shared.model.port import HeuristicModel, ModelPort, ModelResult

__all__ = [
    "HeuristicModel",
    "ModelPort",
    "ModelResult",
    "ModelSettings",
    "OpenAIModel",
    "build_model",
]
