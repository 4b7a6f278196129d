"""A misbehaving OpenAI-compatible server: the conversation still reaches correct notes.

The fake answers the annotator with HTTP 500, timeouts, invalid JSON, schema-violating
JSON and invented integration names; code's retries, repair, fallback and forcing
functions keep the notes right, and the service's metrics show what happened.
"""

from __future__ import annotations

import json

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from planwire.client import SessionClient
from planwire.stack import EmbeddedStack
from shared.model.factory import ModelSettings
from tests.e2e.gathering import gather
from tests.support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.e2e


def proposal(*integrations: str) -> str:
    return "ok:" + json.dumps(
        {
            "requirement_summary": "Invoices to Sheets and Slack.",
            "apps": [{"id": i, "role": "wanted", "evidence": i} for i in integrations],
            "confidence_score": 0.5,
            "hints": [],
        }
    )


ANNOTATOR_SCRIPT = [
    "http500",  # turn 1: retried, then answered
    "invalid_json",  # turn 2: repaired
    "timeout",
    "timeout",  # turn 3: two failures, falls back to the rules
    'schema_violation:{"unexpected": 1}',
    'schema_violation:{"unexpected": 1}',  # turn 4: falls back
    proposal("hubspott"),  # turn 5: a name outside the catalogue fails the schema: repaired
    proposal("salesforce"),  # the nudge: a catalogue id the user never said, dropped by code
]
TURNS = [
    "Invoices arrive as PDF attachments in our Gmail inbox.",
    "Pull the vendor, date and total out of each PDF.",
    "Append a row per invoice to a Google Sheets spreadsheet.",
    "And every Monday morning post a digest of last week's invoices to Slack.",
    "Skip duplicates if the same item shows up twice.",
]


class RoleScriptedFake(FakeOpenAI):
    """Scripted behaviours for one role's calls; every other role gets the default answer."""

    def __init__(self, role: str, behaviours: list[str]) -> None:
        super().__init__(hang_s=3.0)
        self.role, self.pending = role, list(behaviours)

    def _next(self, request: dict) -> str:
        with self._lock:
            self.requests.append(request)
            role = request.get("response_format", {}).get("json_schema", {}).get("name")
            return self.pending.pop(0) if role == self.role and self.pending else ""


@pytest.fixture(scope="module")
def faulty_stack():
    fake = RoleScriptedFake("annotator", ANNOTATOR_SCRIPT).start()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PLANWIRE_MODEL_TIMEOUT_S", "1")
        # Every scripted fault must reach the port: no cool-down after turns 3 and 4 fail.
        patch.setenv("PLANWIRE_MODEL_COOLDOWN_S", "0")
        with EmbeddedStack(
            ModelSettings(model="openai", model_base_url=fake.base_url, model_name="fake")
        ) as stack:
            yield stack, fake
    fake.stop()


def samples(metrics_text: str, name: str) -> dict[tuple, float]:
    found = {}
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def value(metrics_text: str, name: str, **labels: str) -> float:
    return sum(v for k, v in samples(metrics_text, name).items() if set(labels.items()) <= set(k))


async def test_faults_are_retried_repaired_or_fall_back_and_notes_stay_right(faulty_stack):
    stack, fake = faulty_stack
    async with SessionClient(stack.gateway_url) as session:
        state, _summary = await gather(session, TURNS)
    noted = set(state["notes"]["mentioned_integrations"]) | set(state["notes"]["mentioned_tools"])
    assert state["phase"] == "confirming"
    assert {"gmail", "pdf_parser", "google_sheets", "slack", "scheduler"} <= noted
    assert not {"hubspot", "hubspott", "salesforce"} & noted
    assert not fake.pending, "every scripted fault was served"
    metrics = httpx.get(stack.metrics_urls["annotator"]).text
    assert value(metrics, "planwire_model_retries_total", role="annotator") >= 1
    assert value(metrics, "planwire_model_repairs_total", role="annotator") >= 2
    assert (
        value(metrics, "planwire_model_attempt_failures_total", role="annotator", reason="schema")
        >= 2
    )
    assert value(metrics, "planwire_model_fallbacks_total", role="annotator") >= 2
    assert value(metrics, "planwire_model_calls_total", role="annotator", outcome="repaired") >= 1
    assert (
        value(
            metrics,
            "planwire_overrides_total",
            service="annotator",
            rule="model_quote_not_in_user_words",
        )
        >= 1
    )
