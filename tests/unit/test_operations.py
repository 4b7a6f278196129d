"""Every catalogue app says what starts a workflow in it and what it can do; bad data fails."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from catalog import load_catalogue
from catalog.operations import (
    OperationsError,
    load_operations,
    operations_for,
    operations_table,
    parse_operations,
)
from catalog.schema_rules import check_config_schema
from schemas.turn import OPERATORS

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = load_operations()
CATALOGUE = load_catalogue()
RAW = json.loads((ROOT / "catalog" / "operations.json").read_text())
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")


def every_operation() -> list[tuple[str, Any]]:
    """(where, operation) for every event, action and condition step."""
    found = [(f"conditions.{c.id}", c) for c in OPERATIONS.conditions]
    for app in OPERATIONS.apps:
        found += [(f"{app.id}.{op.id}", op) for op in (*app.events, *app.actions)]
    return found


def test_every_catalogue_integration_and_tool_has_operations() -> None:
    assert sorted(OPERATIONS.ids) == sorted(CATALOGUE.ids)
    assert {e.id for e in CATALOGUE.integrations} <= set(OPERATIONS.ids)
    assert {e.id for e in CATALOGUE.tools} <= set(OPERATIONS.ids)


@pytest.mark.parametrize(("where", "operation"), every_operation())
def test_every_config_schema_is_closed_and_bounded(where: str, operation: Any) -> None:
    schema = operation.config_schema
    assert check_config_schema(schema) is None, where
    assert all(spec.get("description") for spec in schema["properties"].values()), where


def test_operation_ids_are_snake_case_and_unique_per_app() -> None:
    for app in OPERATIONS.apps:
        ids = [op.id for op in (*app.events, *app.actions)]
        assert all(SNAKE.match(i) for i in ids), app.id
        assert len(ids) == len(set(ids)), app.id


def test_the_default_operations_are_ones_the_app_offers() -> None:
    for app in OPERATIONS.apps:
        assert (app.default_event is None) == (not app.events), app.id
        assert (app.default_action is None) == (not app.actions), app.id
        assert app.default_event is None or app.event(app.default_event), app.id
        assert app.default_action is None or app.action(app.default_action), app.id


def properties(app_id: str, action_id: str) -> set[str]:
    """The config properties of one action, which must exist."""
    action = operations_for(app_id).action(action_id)
    assert action is not None, f"{app_id} offers no {action_id}"
    return set(action.config_schema["properties"])


def test_the_apps_of_the_issue_offer_the_operations_people_ask_for() -> None:
    gmail = operations_for("gmail")
    new_email = gmail.event("new_email")
    assert new_email is not None and new_email.name == "New email matching a search"
    assert gmail.default_action == "send_email"
    sheets = operations_for("google_sheets")
    assert sheets.default_event == "new_row" and sheets.default_action == "append_row"
    assert properties("google_sheets", "append_row") >= {"spreadsheet", "sheet", "columns"}
    assert operations_for("scheduler").event("schedule") is not None
    assert operations_for("webhook").event("request_received") is not None


def test_an_event_the_app_does_not_emit_is_not_offered() -> None:
    # Shopify sends no product-review webhook: the conversation must say so, not invent one.
    shopify = operations_for("shopify")
    assert shopify.event("new_order") is not None
    assert not any("review" in op.id or "review" in op.name.lower() for op in shopify.events)
    assert operations_for("discord").events == ()
    assert operations_for("translator").events == ()


def test_stated_values_have_a_place_in_the_configs_of_the_issue() -> None:
    # "post it in our #support Slack channel", "email ... to sales@acme.com", "skip gmail.com".
    slack = operations_for("slack").action("post_message")
    assert slack is not None and slack.config_schema["required"] == ["channel"]
    assert re.match(slack.config_schema["properties"]["channel"]["pattern"], "#support")
    assert {"to", "subject", "message_template"} <= properties("gmail", "send_email")
    condition = OPERATIONS.condition("filter").config_schema["properties"]
    assert "not_contains" in condition["operator"]["enum"]


def test_conditions_are_a_filter_and_an_if_with_two_outcomes() -> None:
    operators = OPERATIONS.condition("filter").config_schema["properties"]["operator"]["enum"]
    # The same operators a model's condition may name (schemas.turn.Operator).
    assert operators == list(OPERATORS)
    branch = OPERATIONS.condition("if").config_schema["properties"]
    assert branch["operator"]["enum"] == operators
    assert {"when_true", "when_false"} <= set(branch)
    assert not {c.id for c in OPERATIONS.conditions} & set(CATALOGUE.ids)


def test_properties_shared_with_the_catalogue_keep_their_type() -> None:
    # Configs stay familiar: a property named as in today's config_schema means the same.
    for app in OPERATIONS.apps:
        old = CATALOGUE[app.id].config_schema["properties"]
        for op in (*app.events, *app.actions):
            for name, spec in op.config_schema["properties"].items():
                if name in old:
                    assert spec["type"] == old[name]["type"], f"{app.id}.{op.id}.{name}"
                    assert spec.get("pattern") == old[name].get("pattern"), f"{app.id}.{name}"


def test_every_n8n_mapping_fills_only_declared_properties() -> None:
    for where, op in every_operation():
        assert set(op.n8n.parameters) <= set(op.config_schema["properties"]), where
        assert op.n8n.type.startswith("n8n-nodes-base."), where


def test_an_unknown_app_is_a_key_error_naming_it() -> None:
    with pytest.raises(KeyError, match="'fax'"):
        operations_for("fax")


def broken(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A copy of the packaged data with one change applied."""
    data = copy.deepcopy(RAW)
    change(data)
    return data


def app(data: dict[str, Any], app_id: str) -> dict[str, Any]:
    """The raw entry of one app."""
    return next(a for a in data["apps"] if a["id"] == app_id)


def _drop_if(data: dict[str, Any]) -> None:
    data["conditions"] = [c for c in data["conditions"] if c["id"] != "if"]


BROKEN = {
    "missing app": (
        lambda d: d["apps"].remove(app(d, "rss")),
        "no entry for catalogue ids \\['rss'\\]",
    ),
    "unknown app": (
        lambda d: d["apps"].append({**app(d, "rss"), "id": "fax"}),
        "not in the catalogue",
    ),
    "twice": (lambda d: d["apps"].append(app(d, "rss")), "listed twice"),
    "bad id": (lambda d: app(d, "gmail")["events"][0].update(id="NewEmail"), "snake_case"),
    "duplicate op": (
        lambda d: app(d, "gmail")["actions"].append(app(d, "gmail")["events"][0]),
        "operation id is listed twice",
    ),
    "default elsewhere": (
        lambda d: app(d, "gmail").update(default_event="send_email"),
        "default_event 'send_email' is not one of",
    ),
    "default missing": (
        lambda d: app(d, "slack").update(default_action=None),
        "default_action is missing",
    ),
    "open schema": (
        lambda d: app(d, "slack")["actions"][0]["config_schema"].pop("additionalProperties"),
        "additionalProperties",
    ),
    "unbounded": (
        lambda d: app(d, "rss")["events"][0]["config_schema"]["properties"]["feed_url"].pop(
            "maxLength"
        ),
        "without maxLength",
    ),
    "mapping unknown property": (
        lambda d: app(d, "rss")["events"][0]["n8n"]["parameters"].update(url="feedUrl"),
        "unknown properties \\['url'\\]",
    ),
    "not n8n-nodes-base": (
        lambda d: app(d, "rss")["events"][0]["n8n"].update(type="rssFeedReadTrigger"),
        "n8n.type",
    ),
    "no if": (_drop_if, "conditions must be exactly"),
    "nothing at all": (
        lambda d: app(d, "rss").update(
            events=[], actions=[], default_event=None, default_action=None
        ),
        "no events and no actions",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_bad_operations_data_fails_naming_the_entry(case: str) -> None:
    change, message = BROKEN[case]
    with pytest.raises(OperationsError, match=message):
        parse_operations(broken(change))


def test_an_unreadable_file_fails_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "operations.json"
    path.write_text("{not json")
    with pytest.raises(OperationsError, match=r"operations\.json: not valid JSON"):
        load_operations(path)


def test_the_operations_table_in_the_docs_is_current() -> None:
    doc = (ROOT / "docs" / "workflow-format.md").read_text()
    start, end = "<!-- operations table: generated -->\n", "<!-- end of operations table -->"
    table = doc.split(start, 1)[1].split(end, 1)[0]
    assert table == operations_table(OPERATIONS), (
        "docs/workflow-format.md is stale: paste `python -m catalog.operations` between the markers"
    )
