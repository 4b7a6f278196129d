"""The outline with the real local model (SmolLM2-135M): the limits hold and titles are grounded.

Small on purpose (48 turns, 12 calls, tight limits so that they bind): run with `-m model`.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from catalog import find_mentions, load_catalogue
from schemas.outline import IndexedTurn, Outline
from services.indexer import handlers, logic
from shared.model import OpenAIModel
from shared.model.local import LocalModelServer, ModelFileMissing, find_gguf
from tests.support.long_conversation import long_session

pytestmark = pytest.mark.model

try:
    find_gguf()
except ModelFileMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)

CATALOGUE = load_catalogue()
LIMITS = logic.Limits(topic_turns=8, phase_turns=24)


async def test_smollm2_proposes_and_code_keeps_the_tree_sound_and_in_the_users_words():
    turns = {
        i: IndexedTurn(seq=i, turn_id=f"t{i}", text=t, ids=find_mentions(t, CATALOGUE))
        for i, t in enumerate(long_session(48, seed=21), 1)
    }
    server = LocalModelServer()
    port = OpenAIModel(server.start(), server.alias, "not-needed", timeout_s=60)
    deps = SimpleNamespace(model=port, limits=LIMITS)
    outline, sources, overrides = Outline(), [], []
    try:
        while (batch := logic.pending_batch(outline, turns)) is not None:
            names = handlers.asked_for(batch, CATALOGUE)
            proposal, source = await handlers.propose(outline, batch, deps, names)
            placed = logic.place(outline, proposal, batch, LIMITS, source, names)
            outline, sources, overrides = (
                placed.outline,
                [*sources, source],
                overrides + placed.overrides,
            )
    finally:
        await port.aclose()
        server.stop()
    print(f"sources={sources}\noverrides={overrides}")
    for phase in outline.phases:
        print(phase.title, [(t.title, t.turns) for t in phase.topics])
    assert logic.problems(outline, LIMITS) == []
    assert len(outline.phases) >= 2  # 48 turns cannot fit one 24-turn phase
    for _phase, topic, action in outline.actions():
        batch = [turns[s] for s in range(action.first_turn, action.last_turn + 1)]
        assert logic.in_user_words(action.summary, batch), action.summary
        if action is topic.actions[0]:  # the user's words, or the apps they asked for
            own = logic.heuristic_title(batch, handlers.asked_for(batch, CATALOGUE))
            assert logic.in_user_words(topic.title, batch) or topic.title == own, topic.title
