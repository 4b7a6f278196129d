"""The shape of a saved workflow against a case's `trigger`, `order` and `values`. Pure.

../shared/eval/FORMAT.md (v2) scores what the plan's apps are wired into: which node starts
the workflow, which node's data reaches which, and which of the user's values landed in a
config. The document is read generically, so the same checks hold for the linear
`planwire.workflow/v1` documents and for graphs with nodes no catalogue id names (a
condition): a node's id is its `app` or its `specialist`; a node without one matches no id,
but its config is still searched for a `"*"` value.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planwire.evaluate import Case

ANY = "*"  # a `values` key: the text may be in any node's config
MANUAL = "manual"  # the trigger of a document whose trigger node is null
MISSING = "missing"  # the trigger of a case that saved no document


def shape_errors(case: Case, document: dict[str, Any] | None) -> list[str]:
    """One error in words per shape check that fails; every check fails without a document."""
    doc = document or {}
    errors = []
    if case.trigger is not None:
        found = trigger_of(doc) if document is not None else MISSING
        if found != case.trigger:
            errors.append(f"trigger is {found}, expected {case.trigger}")
    errors += [f"no path {a} -> {b}" for a, b in case.order if not has_path(doc, a, b)]
    for key, texts in case.values.items():
        errors += [value_error(key, t) for t in texts if not has_value(doc, key, t)]
    return errors


def shape_checks(case: Case) -> int:
    """How many shape checks a case makes: its trigger, each order pair, each value text."""
    return (case.trigger is not None) + len(case.order) + sum(map(len, case.values.values()))


def value_error(key: str, text: str) -> str:
    """The error for one value text no config of `key` holds."""
    return f"no config has '{text}'" if key == ANY else f"{key} config lacks '{text}'"


def node_id_of(node: dict[str, Any]) -> str | None:
    """The catalogue id a node stands for; None for a node no catalogue entry runs."""
    found = node.get("app") or node.get("specialist")
    return str(found) if found else None


def trigger_of(doc: dict[str, Any]) -> str:
    """The catalogue id of the node that starts the workflow, or "manual"."""
    started_by = (doc.get("trigger") or {}).get("node")
    if started_by is None:
        return MANUAL
    node: dict[str, Any] = next((n for n in doc.get("nodes", []) if n.get("id") == started_by), {})
    return node_id_of(node) or str(started_by)


def has_path(doc: dict[str, Any], first: str, then: str) -> bool:
    """True when edges lead (one or more of them) from a `first` node to a `then` node."""
    ids = {n.get("id"): node_id_of(n) for n in doc.get("nodes", [])}
    following: dict[Any, list[Any]] = {}
    for edge in doc.get("edges", []):
        following.setdefault(edge.get("from"), []).append(edge.get("to"))
    # Walk from every `first` node; a node is reached only through an edge, so a path has one.
    waiting = [to for node, cid in ids.items() if cid == first for to in following.get(node, [])]
    reached: set[Any] = set()
    while waiting:
        node = waiting.pop()
        if node in reached:
            continue
        if ids.get(node) == then:
            return True
        reached.add(node)
        waiting += following.get(node, [])
    return False


def has_value(doc: dict[str, Any], key: str, text: str) -> bool:
    """True when `text` appears, case-insensitively, in the config of a `key` node ("*": any)."""
    wanted = text.lower()
    return any(
        wanted in config_text(n.get("config")).lower()
        for n in doc.get("nodes", [])
        if key == ANY or node_id_of(n) == key
    )


def config_text(value: Any) -> str:
    """A config's keys and scalar values, one a line, as written: "#support", not "\\u0023".

    Strings are taken as they are (no JSON escaping of slashes or non-ASCII letters), so
    "Zürich" or "acme/orbit" is found as the user typed it.
    """
    if isinstance(value, dict):
        return "\n".join(f"{k}\n{config_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(config_text(v) for v in value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
