"""The conversation index's rules: the model proposes where a batch goes, code owns the tree.

Pure functions, no I/O. A batch is 4 consecutive user turns. For each, the model (or the
heuristic) proposes `extend_topic`, `new_topic` or `new_phase`, a title for a new topic or
phase and a one-line summary. Code then enforces the structure:
- no tree yet, or a phase that would exceed `phase_turns`: `new_phase`;
- a topic that would exceed `topic_turns`: `new_topic` (a model's `new_phase` stays);
- a title or summary not in the user's words is replaced by one taken from the batch.
The heuristic (the fallback when the model fails twice, and the offline backend) uses the
same thresholds, and opens a topic when the batch names catalogue items no topic of the
current phase mentions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from catalog.flow import SCHEDULER
from schemas.outline import (
    Decision,
    IndexedTurn,
    Outline,
    OutlineAction,
    OutlinePhase,
    OutlineTopic,
)
from shared.grounding import STOPWORDS, content_words

BATCH_TURNS = 4
TITLE_CHARS = 60
SUMMARY_CHARS = 160
TITLE_WORDS = 6  # a title without apps: the opening words of a message
TITLE_ITEMS = 4  # apps named in a title, at most
# Words that carry no subject in a chat; kept out of heuristic titles.
FILLER = frozenset(
    [
        "want",
        "need",
        "like",
        "please",
        "thanks",
        "thank",
        "okay",
        "yes",
        "let",
        "get",
        "know",
        "think",
        "remember",
        "said",
        "sure",
        "again",
        "really",
        "maybe",
        "well",
        "still",
        "even",
        "another",
        "thing",
        "things",
        "lot",
        "bit",
    ]
)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]{2,}")


@dataclass(frozen=True)
class Limits:
    """The structure's bounds (settings)."""

    topic_turns: int = 20
    phase_turns: int = 80


@dataclass(frozen=True)
class Proposal:
    """Where a batch goes, with the title of a new topic or phase and the batch's summary."""

    decision: Decision
    title: str
    summary: str


@dataclass(frozen=True)
class Placed:
    """The tree after a batch, and the rules code applied to the proposal."""

    outline: Outline
    proposal: Proposal
    overrides: list[str]


def batch_turns(batch: int) -> range:
    """The turn numbers (seq) of batch `batch`."""
    return range(BATCH_TURNS * batch + 1, BATCH_TURNS * batch + BATCH_TURNS + 1)


def pending_batch(outline: Outline, turns: dict[int, IndexedTurn]) -> list[IndexedTurn] | None:
    """The next batch to index once all of its turns arrived; None while one is missing."""
    wanted = batch_turns(outline.next_batch)
    return [turns[s] for s in wanted] if all(s in turns for s in wanted) else None


def required(outline: Outline, turns: int, limits: Limits) -> Decision | None:
    """The decision the structure forces for a batch of `turns`, or None when free."""
    if not outline.phases or outline.phases[-1].turns + turns > limits.phase_turns:
        return "new_phase"
    topics = outline.phases[-1].topics
    if not topics or topics[-1].turns + turns > limits.topic_turns:
        return "new_topic"
    return None


def names_new_items(outline: Outline, batch: Sequence[IndexedTurn]) -> bool:
    """True when the batch names catalogue ids no topic of the current phase mentions."""
    named = {i for turn in batch for i in turn.ids}
    if not outline.phases:
        return bool(named)
    known = {i for t in outline.phases[-1].topics for a in t.actions for i in a.ids}
    return bool(named - known)


def heuristic(
    outline: Outline,
    batch: Sequence[IndexedTurn],
    limits: Limits,
    names: Mapping[str, str] | None = None,
) -> Proposal:
    """The rules' proposal: deterministic, with a title and summary from the batch's words."""
    decision = required(outline, len(batch), limits) or (
        "new_topic" if names_new_items(outline, batch) else "extend_topic"
    )
    return Proposal(decision, heuristic_title(batch, names), heuristic_summary(batch))


def heuristic_title(batch: Sequence[IndexedTurn], names: Mapping[str, str] | None = None) -> str:
    """A short phrase a person reads at a glance: the apps the batch asks for, in the order
    named ("Gmail → PDF parser → Slack"); without any, the opening words of its first message
    that says something. `names`: the apps asked for (not those turned down), id -> name, in
    order; without it, every id the batch names, as words."""
    if names is None:
        names = {i: i.replace("_", " ") for turn in batch for i in turn.ids}
    # The schedule is when, not what: "Scheduler" alone tells nothing of the subject.
    apps = [name for i, name in names.items() if i != SCHEDULER]
    if apps:
        title = " → ".join(apps[:TITLE_ITEMS])
        return title[:1].upper() + title[1:TITLE_CHARS]
    telling = next((t.text for t in batch if says_something(t.text)), batch[0].text)
    return opening(telling) or "Conversation"


def says_something(text: str) -> bool:
    """Whether a message has a telling word, unlike "yes, thanks"."""
    return any(w.lower() not in STOPWORDS | FILLER for w in WORD.findall(text))


def opening(text: str) -> str:
    """The first few words of a message, as a title: "Every Monday morning post a digest…"."""
    words = text.split()
    phrase = " ".join(words[:TITLE_WORDS]).rstrip(".,;:!?")
    more = "…" if len(words) > TITLE_WORDS else ""
    return (phrase[:1].upper() + phrase[1:])[:TITLE_CHARS] + more


def heuristic_summary(batch: Sequence[IndexedTurn]) -> str:
    """The batch's messages, each shortened, joined in order: one line of the user's words."""
    per_turn = max(20, SUMMARY_CHARS // max(1, len(batch)) - 3)
    parts = [shorten(turn.text, per_turn) for turn in batch]
    return shorten(" / ".join(p for p in parts if p), SUMMARY_CHARS)


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0]
    return cut + "…"


def in_user_words(text: str, batch: Sequence[IndexedTurn]) -> bool:
    """At least half of the text's telling words are the user's (and it has some)."""
    words = content_words(text)
    said = content_words(" ".join(turn.text for turn in batch))
    return bool(words) and 2 * len(words & said) >= len(words)


def enforce(
    outline: Outline,
    proposal: Proposal,
    batch: Sequence[IndexedTurn],
    limits: Limits,
    names: Mapping[str, str] | None = None,
) -> tuple[Proposal, list[str]]:
    """The proposal under code's rules, and the rules that changed it. The heuristic's own
    title (the apps' catalogue names) stands as grounded: the user named those apps."""
    rules: list[str] = []
    decision = proposal.decision
    forced = required(outline, len(batch), limits)
    if forced == "new_phase" and decision != "new_phase":
        decision = "new_phase"
        rules.append("phase_full" if outline.phases else "first_phase")
    elif forced == "new_topic" and decision == "extend_topic":
        decision = "new_topic"
        rules.append("topic_full")
    title, summary = proposal.title.strip()[:TITLE_CHARS], proposal.summary.strip()
    own = heuristic_title(batch, names)
    if decision != "extend_topic" and title != own and not in_user_words(title, batch):
        title = own
        rules.append("title_not_grounded")
    if not in_user_words(summary, batch):
        summary = heuristic_summary(batch)
        rules.append("summary_not_grounded")
    return Proposal(decision, title, shorten(summary, SUMMARY_CHARS)), rules


def apply(
    outline: Outline,
    proposal: Proposal,
    batch: Sequence[IndexedTurn],
    decided_by: str,
) -> Outline:
    """The tree with the batch appended as one action where the proposal says."""
    action = OutlineAction(
        batch=outline.next_batch,
        first_turn=batch[0].seq,
        last_turn=batch[-1].seq,
        turn_ids=[t.turn_id for t in batch],
        summary=proposal.summary,
        ids=list(dict.fromkeys(i for t in batch for i in t.ids)),
        decided_by=decided_by,
    )
    phases = list(outline.phases)
    if proposal.decision == "new_phase":
        phases.append(OutlinePhase(title=proposal.title, topics=[]))
    phase = phases[-1]
    topics = list(phase.topics)
    if proposal.decision != "extend_topic":
        topics.append(OutlineTopic(title=proposal.title, actions=[]))
    topics[-1] = topics[-1].model_copy(update={"actions": [*topics[-1].actions, action]})
    phases[-1] = phase.model_copy(update={"topics": topics})
    return Outline(version=outline.version + 1, next_batch=outline.next_batch + 1, phases=phases)


def place(
    outline: Outline,
    proposal: Proposal,
    batch: Sequence[IndexedTurn],
    limits: Limits,
    source: str,
    names: Mapping[str, str] | None = None,
) -> Placed:
    """Enforce the rules on a proposal from `source` ("model" or "heuristic") and apply it
    (`names`: the apps the batch asks for, as `heuristic_title` takes them)."""
    enforced, rules = enforce(outline, proposal, batch, limits, names)
    changed = enforced.decision != proposal.decision
    decided_by = "code" if source == "model" and changed else source
    return Placed(apply(outline, enforced, batch, decided_by), enforced, rules)


def problems(outline: Outline, limits: Limits) -> list[str]:
    """What is wrong with a tree (an empty list for a sound one); used by tests and checks."""
    found = []
    seqs = [s for _, _, a in outline.actions() for s in range(a.first_turn, a.last_turn + 1)]
    if seqs != list(range(1, len(seqs) + 1)):
        found.append("turns are not each in exactly one action, in order")
    for p in outline.phases:
        if p.turns > limits.phase_turns:
            found.append(f"phase {p.title!r} has {p.turns} turns")
        found += [
            f"topic {t.title!r} has {t.turns} turns"
            for t in p.topics
            if t.turns > limits.topic_turns or not t.actions
        ]
    return found
