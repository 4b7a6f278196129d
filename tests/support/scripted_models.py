"""The eval's scripted annotator models (planwire/scripted.py) as in-process ModelScripts.

The same oracle and liar that `planwire eval --scripted` serves to the real annotator, here
speaking through the ModelView a real model's JSON becomes, so code's evidence checks are
what is under test when the replay plays a whole corpus in milliseconds.
"""

from __future__ import annotations

from catalog import Catalogue
from planwire import scripted
from schemas.turn import Notes
from services.annotator.handlers import view_from
from services.annotator.logic import ModelView
from tests.support.replay import ModelScript


def _as_model(script: scripted.Script) -> ModelScript:
    def answer(notes: Notes, text: str) -> ModelView:
        # Through the annotator's own reader of a model's JSON, as on the stack.
        return view_from(scripted.as_json(script(notes.model_dump(), text)))

    return answer


def oracle(case: dict, catalogue: Catalogue) -> ModelScript:
    """Knows the case's answer and proposes it with the user's own words as evidence."""
    return _as_model(scripted.oracle([case], catalogue))


def liar(catalogue: Catalogue) -> ModelScript:
    """Invents apps and quotes words the user never wrote."""
    return _as_model(scripted.liar(catalogue))
