"""Finishing in people's words: a closing reaches confirmation, a sentence that merely holds
the same words does not (services/annotator/closing.py, through the annotator's fold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import load_catalogue
from schemas.turn import Notes
from services.annotator.closing import said_done
from services.annotator.logic import ModelView, fold
from tests.support.replay import Session

CATALOGUE = load_catalogue()
THRESHOLD = 0.8
DESCRIBED = "When a Stripe payment fails, post the customer's name to #billing in Slack."

# Phrasings that are none of the corpus's closing turns.
CLOSINGS = [
    "done",
    "that's it",
    "nothing else",
    "go ahead",
    "ship it",
    "build it",
    "that's all",
    "all set",
    "I'm finished",
    "no more",
    "that covers it",
    "good to go",
    "you can build it now",
    "let's do it",
    "sounds good, that's all",
    "Ok, I think we're done here.",
    "Yep — that's everything!",
    "Alright, go for it",
    "ready",
    "Please proceed.",
    "that'll do, thanks",
    "Nothing more to add.",
    "Perfect, build it please",
    "I'm done, thank you!",
    "all good, ship it",
    "nope, nothing else",
    "can't think of anything else",
    "wrap it up",
    "Thats all thx",
    "ok that should do it",
]
NEAR_MISSES = [
    "done with Trello",
    "when the upload is done",
    "get it done by Friday",
    "nothing else matters than speed, and also post to Slack",
    "We're done with Slack really, use Discord",
    "go ahead and post it to #general as well",
    "build it so it runs every night",
    "that's it for the trigger, now the actions",
    "Done. Oh, also add a Trello card",
    "No more emails to the team, just Slack",
    "Is it ready?",
    "ready when the form is submitted",
    "That's all on the sheet already",
    "The trips go ahead at nine if the wind is low",
    # read by structure, not by the listed forms: each adds, asks or is not yet finished
    "I'm not finished yet",
    "Start with the invoices from last month",
    "Make the subject line shorter",
    "that's it for the first step",
    "when you're done let me know",
    "Is that everything you need?",
    "build the summary from the comments too",
    "Make the subject line start with the word Auto.",
    "Please make sure a human can undo anything it does.",
    "Sorry, the office is loud today, it's someone's birthday.",
]


def test_at_least_twenty_ways_of_saying_done_are_in_the_list():
    assert len(set(CLOSINGS)) >= 20


@pytest.mark.parametrize("text", CLOSINGS)
def test_a_closing_reaches_confirmation_on_the_turn_it_is_said(text):
    described = fold(Notes(), DESCRIBED, ModelView(), CATALOGUE, THRESHOLD, None).notes
    assert said_done(text)
    assert fold(described, text, ModelView(), CATALOGUE, THRESHOLD, None).ready_for_confirmation


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_words_of_a_closing_inside_a_sentence_do_not_close(text):
    described = fold(Notes(), DESCRIBED, ModelView(), CATALOGUE, THRESHOLD, None).notes
    assert not said_done(text)
    folded = fold(described, text, ModelView(), CATALOGUE, THRESHOLD, None)
    assert not folded.ready_for_confirmation


def test_a_closing_after_the_last_detail_closes_the_message():
    assert said_done("Post it to #sales in Slack. That's it, thanks!")
    assert said_done("Use the Leads sheet - good to go")


def corpus_sample(count: int) -> list[dict]:
    """Every n-th case of the project's corpus, for a spread of conversations."""
    folder = Path(__file__).resolve().parents[2] / "eval" / "cases"
    files = sorted(folder.glob("*.json"))
    return [json.loads(f.read_text()) for f in files[:: max(len(files) // count, 1)][:count]]


@pytest.mark.parametrize("text", CLOSINGS)
def test_corpus_sessions_confirm_on_the_turn_a_closing_is_said(text):
    for case in corpus_sample(4):
        session = Session(CATALOGUE)
        for turn in [t for t in case["turns"] if not said_done(t)]:
            session.say(turn)
        assert session.out.phase == "gathering"
        session.say(text)
        assert session.out.phase == "confirming", (case["id"], session.out.replies[-1])


def test_the_closings_measure_names_a_phrasing_that_does_not_close(tmp_path, capsys):
    from tests.support import closings

    said = tmp_path / "phrasings.json"
    said.write_text(json.dumps(["all set, thanks", "what about the colours of the logo"]))
    assert closings.main([str(said), "--cases", "2"]) == 1
    out = capsys.readouterr().out
    assert "MISS 'what about the colours of the logo'" in out
    assert "closings: 1/2" in out
