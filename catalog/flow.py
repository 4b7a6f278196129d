"""The flow of a workflow from the notes: what starts it, the order of its steps, what each
does. Pure rules shared by the planner (which compiles it) and the conversation (whose
confirmation says it in words), so both tell the same story.
"""

from __future__ import annotations

from catalog.events import described_event
from catalog.model import Catalogue, CatalogueEntry
from catalog.operations import AppOperations, operations_for
from schemas.turn import Notes, Reference

SCHEDULER = "scheduler"
ROLE_RANK = {"trigger": 1, "source": 1, "processor": 2, "action": 3}
USE_RANK = {"event": 1, "source": 1, "destination": 3}
# Reading actions, most specific first: a database is read by its rows ("the table
# locations"), before a free SQL query the user never wrote.
READ_ACTIONS = ("read", "select", "list", "get", "search", "fetch", "query")
UNSAID = 10**12  # an item with no reference sorts after every one the user placed


def noted_ids(notes: Notes, catalogue: Catalogue) -> list[str]:
    """The noted integrations and tools that are in the catalogue and not removed, once each."""
    items = [*notes.mentioned_integrations, *notes.mentioned_tools]
    removed = set(notes.removed)
    return list(
        dict.fromkeys(i for i in items if catalogue.get(i) is not None and i not in removed)
    )


def wanted_refs(notes: Notes) -> dict[str, Reference]:
    """The notes' references of wanted apps, by id."""
    return {r.id: r for r in notes.references if r.role == "wanted"}


def trigger_of(notes: Notes, catalogue: Catalogue) -> str | None:
    """What starts the workflow: the schedule when there is one; else the first app the user
    described an event in, else the first they read from, else the first whose catalogue role
    is a trigger and that the user did not describe as a destination; each only if the app
    has an event to start from (catalog/operations.json). None: the user starts it."""
    items = noted_ids(notes, catalogue)
    if SCHEDULER in items:
        return SCHEDULER
    refs = wanted_refs(notes)
    placed = sorted(items, key=lambda i: refs[i].at if i in refs else UNSAID)
    use = {i: refs[i].use if i in refs else None for i in placed}
    apps = [i for i in placed if catalogue[i].kind == "integration"]
    tests = (
        lambda i: use[i] == "event",
        lambda i: use[i] == "source",
        lambda i: catalogue[i].role == "trigger" and use[i] != "destination",
        # Nothing said where the data comes from: the first app the user described, when
        # another app is left to receive the results.
        lambda i: len(apps) > 1 and i == apps[0],
    )
    for test in tests:
        for item in placed:
            if test(item) and operations_for(item).events:
                return item
    return None


def rank(item: str, catalogue: Catalogue, notes: Notes | None = None) -> tuple[int, int, int]:
    """Where a step goes: the trigger first, then what the workflow reads, what it works out
    (what reads the files first: nothing works on a PDF's numbers before it is read), where
    it writes; within each, the order the user described them in. (group, stage, place)"""
    refs = wanted_refs(notes) if notes is not None else {}
    ref = refs.get(item)
    if (notes is not None and item == trigger_of(notes, catalogue)) or item == SCHEDULER:
        group = 0
    elif catalogue[item].kind == "tool":
        group = 2
    elif catalogue[item].role in ("trigger", "source") and not catalogue[item].also_acts:
        group = 1  # an app that can only be read (a feed) is read, wherever it was told
    elif ref is not None and ref.use is not None:
        group = USE_RANK[ref.use]
    elif catalogue[item].family == "messaging" and _fed_elsewhere(item, refs, catalogue):
        # With the data coming from another app, a chat is where people are told of it;
        # reading one is said ("grab everything from #general").
        group = 3
    elif ref is not None and notes is not None and first_tool_at(notes, catalogue) < UNSAID:
        group = 1 if ref.at < first_tool_at(notes, catalogue) else 3  # as the user told it
    elif ref is not None and notes is not None and catalogue[item].also_acts:
        # No step works on the data: an app that both reads and writes is read when told
        # before the first app that only writes, else written to.
        group = 1 if ref.at < first_writer_at(notes, catalogue) else 3
    else:
        group = ROLE_RANK.get(catalogue[item].role, 2)
    stage = 0 if group == 2 and catalogue[item].reads_files else 1
    return group, stage, ref.at if ref is not None else UNSAID


def _fed_elsewhere(item: str, refs: dict[str, Reference], catalogue: Catalogue) -> bool:
    """Another app brings the data in: an event starts there or it is read."""
    return any(
        r.id != item
        and catalogue[r.id].kind == "integration"
        and (r.use in ("event", "source") or _read_only(catalogue[r.id]))
        for r in refs.values()
        if catalogue.get(r.id) is not None
    )


def _read_only(entry: CatalogueEntry) -> bool:
    """An app that can only be read (a feed): naming it brings data in."""
    return entry.role in ("trigger", "source") and not entry.also_acts


def first_writer_at(notes: Notes, catalogue: Catalogue) -> int:
    """Where the user first described an app that can only be written to (UNSAID if none)."""
    writers = [
        r.at
        for r in wanted_refs(notes).values()
        if (e := catalogue.get(r.id)) is not None and e.role == "action" and not e.also_acts
    ]
    return min(writers, default=UNSAID)


def first_tool_at(notes: Notes, catalogue: Catalogue) -> int:
    """Where the user first described a step that works on the data (UNSAID if none)."""
    tools = [
        r.at
        for r in wanted_refs(notes).values()
        if (e := catalogue.get(r.id)) is not None and e.kind == "tool" and r.id != SCHEDULER
    ]
    return min(tools, default=UNSAID)


def operation_of(item: str, notes: Notes, catalogue: Catalogue) -> str | None:
    """The event the trigger starts on, or the action a step performs: reading where the user
    reads from the app, the app's default action otherwise."""
    ops: AppOperations = operations_for(item)
    if item == trigger_of(notes, catalogue):
        ref = wanted_refs(notes).get(item)
        return described_event(ops, ref.quote) if ref is not None else ops.default_event
    if rank(item, catalogue, notes)[0] == 1:  # read from, as the user told it
        # An app with no read action is read by its event: what is new since the last run.
        reading = [a.id for verb in READ_ACTIONS for a in ops.actions if a.id.startswith(verb)]
        return reading[0] if reading else ops.default_event or ops.default_action
    return ops.default_action


def ordered(notes: Notes, catalogue: Catalogue) -> list[str]:
    """The noted steps in the order the workflow runs them: code's reading, except that a
    link the notes hold (data moves from one step to another, checked when noted) puts its
    source before its target. The trigger stays first: nothing feeds what starts the run."""
    by_rank = sorted(noted_ids(notes, catalogue), key=lambda i: rank(i, catalogue, notes))
    starts = bool(by_rank) and rank(by_rank[0], catalogue, notes)[0] == 0
    return linked_order(by_rank, [(k.source, k.target) for k in notes.links], starts)


def linked_order(items: list[str], links: list[tuple[str, str]], starts: bool = False) -> list[str]:
    """`items` reordered as little as the links need: each time, the earliest item whose
    every linked source is placed. A link into the first item when it `starts` the run, or
    one that would close a cycle, is not followed."""
    first = items[:1] if starts else []
    edges = [(a, b) for a, b in links if a in items and b in items and b not in first]
    placed: list[str] = []
    left = list(items)
    while left:
        ready = [i for i in left if all(a in placed for a, b in edges if b == i)]
        pick = ready[0] if ready else left[0]  # a cycle: code's order breaks it
        placed.append(pick)
        left.remove(pick)
    return placed
