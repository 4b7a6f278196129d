"""Event contracts: exported JSON Schemas match the models; ids derive deterministically."""

from __future__ import annotations

import uuid

import pytest
from pydantic import ValidationError

from schemas.registry import CONTRACTS, EXPORT_DIR, rendered
from schemas.turn import ContextTrimmed, Phase, TurnReceived


@pytest.mark.parametrize("model", CONTRACTS, ids=lambda m: m.__name__)
def test_exported_schema_matches_the_model(model):
    path = EXPORT_DIR / f"{model.__name__}.json"
    assert path.exists(), f"{path.name} is not exported: run python -m schemas.registry"
    assert path.read_text() == rendered(model), (
        f"{model.__name__} changed: run python -m schemas.registry"
    )


def test_every_contract_has_a_docstring_and_field_descriptions():
    for model in CONTRACTS:
        assert model.__doc__, model.__name__
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name}"


def test_a_redelivered_cause_yields_the_same_event_id():
    cause = TurnReceived(session_id="session-1", turn_id="t-1", text="hello", turn_seq=1)
    first = ContextTrimmed.caused_by(
        cause, user_text="hello", messages=[], dropped_units=0, phase=Phase.GATHERING
    )
    again = ContextTrimmed.caused_by(
        cause, user_text="hello", messages=[], dropped_units=0, phase=Phase.GATHERING
    )
    assert first.event_id == again.event_id
    assert first.causation_id == cause.event_id and first.turn_id == "t-1"
    assert first.event_id != uuid.uuid5(cause.event_id, "other")


def test_bad_envelopes_are_rejected():
    with pytest.raises(ValidationError):
        TurnReceived(session_id="x", text="hi", turn_seq=1)
    with pytest.raises(ValidationError):
        TurnReceived(session_id="session-1", text="", turn_seq=1)
    with pytest.raises(ValidationError):
        TurnReceived(session_id="session-1", text="hi", turn_seq=1, unexpected=True)
