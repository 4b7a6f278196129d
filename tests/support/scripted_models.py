"""Scripted annotator models for the corpus: an oracle that knows each case's answer and
a liar that proposes what the user never said. Both speak through the same ModelView a
real model's JSON becomes, so code's evidence checks are what is under test.
"""

from __future__ import annotations

import re

from catalogue import Catalogue, names, removal_cue
from schemas.turn import Notes
from services.annotator.logic import ModelView
from tests.support.replay import ModelScript

SENTENCE = re.compile(r"[^.!?;\n]+")
MAX_QUOTE = 100


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.findall(text) if s.strip()]


def _quote(sentence: str) -> str:
    return sentence[:MAX_QUOTE]


def oracle(case: dict, catalogue: Catalogue) -> ModelScript:
    """Per turn, the case's expected items where the user last names them, and its absent
    items where the user last names them with a removal cue, each with a verbatim quote."""
    expect = case["expect"]
    wanted, unwanted = expect["integrations"] + expect["tools"], expect.get("absent", [])
    last_turn = {
        i: t
        for t, text in enumerate(case["turns"])
        for i in wanted + unwanted
        if names(i, text, catalogue)
    }
    turn_of = {text: t for t, text in enumerate(case["turns"])}

    def answer(_notes: Notes, text: str) -> ModelView:
        t = turn_of.get(text)
        mentions, removals = [], []
        for sentence in _sentences(text):
            quote = _quote(sentence)
            mentions += [
                (i, quote) for i in wanted if last_turn.get(i) == t and names(i, quote, catalogue)
            ]
            removals += [
                (i, quote)
                for i in unwanted
                if last_turn.get(i) == t and names(i, quote, catalogue) and removal_cue(quote)
            ]
        return ModelView(mentions=tuple(mentions), removals=tuple(removals))

    return answer


def liar(catalogue: Catalogue) -> ModelScript:
    """Invents items the message does not name, quotes words the user never wrote, and
    removes every noted item with a quote that names it but holds no removal cue."""
    ids = catalogue.ids

    def answer(notes: Notes, text: str) -> ModelView:
        named = {i for i in ids if names(i, text, catalogue)}
        invented = [i for i in ids if i not in named][:3]
        opening = _quote(text)
        mentions = [(i, opening) for i in invented] + [
            (invented[0], f"please add {catalogue.get(invented[0]).name}")
        ]
        noted = [*notes.mentioned_integrations, *notes.mentioned_tools]
        removals = [(i, catalogue.get(i).name) for i in noted] + [
            (i, f"drop {catalogue.get(i).name}") for i in noted
        ]
        return ModelView(
            summary="", mentions=tuple(mentions), removals=tuple(removals), confidence=1.0
        )

    return answer
