"""The packaged catalogue holds the minimum entries, and bad catalogue data fails loudly."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from catalog import Catalogue, CatalogueEntry, CatalogueError, load_catalogue, parse_catalogue

CATALOGUE = load_catalogue()

# The minimum catalogue (../shared/CATALOGUE.md), copied as data so this test needs no file.
# Scheduler and linear have descriptive rows there; these are their phrase aliases.
REQUIRED: dict[str, tuple[str, tuple[str, ...]]] = {
    "gmail": ("integration", ("gmail", "google mail")),
    "outlook": ("integration", ("outlook", "office 365 mail", "microsoft 365 mail", "hotmail")),
    "slack": ("integration", ("slack",)),
    "microsoft_teams": ("integration", ("microsoft teams", "ms teams", "teams")),
    "discord": ("integration", ("discord",)),
    "telegram": ("integration", ("telegram",)),
    "whatsapp": ("integration", ("whatsapp",)),
    "twilio_sms": ("integration", ("twilio", "sms", "text message")),
    "google_sheets": ("integration", ("google sheets", "google sheet", "gsheets")),
    "google_drive": ("integration", ("google drive", "gdrive")),
    "google_calendar": ("integration", ("google calendar", "gcal")),
    "dropbox": ("integration", ("dropbox",)),
    "notion": ("integration", ("notion",)),
    "airtable": ("integration", ("airtable",)),
    "trello": ("integration", ("trello",)),
    "asana": ("integration", ("asana",)),
    "jira": ("integration", ("jira",)),
    "linear": ("integration", ("linear",)),
    "github": ("integration", ("github",)),
    "gitlab": ("integration", ("gitlab",)),
    "salesforce": ("integration", ("salesforce",)),
    "hubspot": ("integration", ("hubspot",)),
    "zendesk": ("integration", ("zendesk",)),
    "intercom": ("integration", ("intercom",)),
    "stripe": ("integration", ("stripe",)),
    "shopify": ("integration", ("shopify",)),
    "quickbooks": ("integration", ("quickbooks",)),
    "postgres": ("integration", ("postgres", "postgresql")),
    "mysql": ("integration", ("mysql",)),
    "s3": ("integration", ("s3", "amazon s3", "aws s3")),
    "webhook": ("integration", ("webhook",)),
    "rss": ("integration", ("rss", "rss feed")),
    "web_search": ("tool", ("web search", "search the web", "google search")),
    "calculator": ("tool", ("calculator",)),
    "pdf_parser": ("tool", ("pdf", "pdfs")),
    "ocr": ("tool", ("ocr", "scanned", "text from images")),
    "translator": ("tool", ("translate", "translation", "translator")),
    "sentiment": ("tool", ("sentiment",)),
    "scheduler": (
        "tool",
        (
            "daily",
            "weekly",
            "hourly",
            "cron",
            "every day",
            "every morning",
            "every week",
            "every monday",
        ),
    ),
    "http_request": ("tool", ("http request", "rest api", "api call")),
    "text_summarizer": ("tool", ("summarize", "summarise", "summary of", "digest")),
}
STARTERS = {
    "gmail",
    "outlook",
    "github",
    "zendesk",
    "salesforce",
    "stripe",
    "shopify",
    "webhook",
    "rss",
    "scheduler",
}
DESTINATIONS = {
    "slack",
    "microsoft_teams",
    "discord",
    "telegram",
    "whatsapp",
    "twilio_sms",
    "dropbox",
    "s3",
    "notion",
}


@pytest.mark.parametrize("item", sorted(REQUIRED))
def test_every_required_entry_exists_with_its_kind_and_aliases(item):
    kind, aliases = REQUIRED[item]
    entry = CATALOGUE.get(item)
    assert entry is not None, f"{item} missing from the catalogue"
    assert entry.kind == kind
    assert set(aliases) <= set(entry.aliases), f"{item} lacks {set(aliases) - set(entry.aliases)}"


def test_roles_follow_what_each_entry_does():
    roles = {entry.id: entry.role for entry in CATALOGUE.entries}
    assert all(roles[i] == "trigger" for i in STARTERS)
    assert all(roles[i] == "action" for i in DESTINATIONS)
    assert roles["postgres"] == roles["mysql"] == "source"
    assert all(e.role == "processor" for e in CATALOGUE.tools if e.id != "scheduler")
    assert {"gmail", "outlook", "slack"} <= {e.id for e in CATALOGUE.entries if e.also_acts}


@pytest.mark.parametrize("entry", CATALOGUE.entries, ids=lambda e: e.id)
def test_config_schemas_are_small_closed_and_bounded(entry: CatalogueEntry):
    schema = entry.config_schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert 2 <= len(schema["properties"]) <= 5
    assert schema["required"] and set(schema["required"]) <= set(schema["properties"])
    for spec in schema["properties"].values():
        inner = spec.get("items", spec)
        assert spec["type"] != "array" or "maxItems" in spec
        assert inner["type"] != "string" or "maxLength" in inner or "enum" in inner


def test_ids_are_snake_case_and_aliases_lower_case():
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", i) for i in CATALOGUE.ids)
    assert all(a == a.lower().strip() and a for e in CATALOGUE.entries for a in e.aliases)


def test_lookups():
    assert CATALOGUE.get("slack").name == "Slack"
    assert CATALOGUE.get("no_such_thing") is None
    assert set(CATALOGUE.ids) == {e.id for e in (*CATALOGUE.integrations, *CATALOGUE.tools)}
    assert all(e.kind == "integration" for e in CATALOGUE.integrations)
    assert all(e.kind == "tool" for e in CATALOGUE.tools)


def test_the_packaged_catalogue_is_loaded_once():
    assert load_catalogue() is CATALOGUE
    assert isinstance(CATALOGUE, Catalogue)


def _data() -> dict[str, Any]:
    return copy.deepcopy(CATALOGUE.model_dump(mode="json"))


def _entry(data: dict[str, Any], item: str) -> dict[str, Any]:
    return next(e for e in data["entries"] if e["id"] == item)


Mutation = Callable[[dict[str, Any]], None]
BROKEN: list[tuple[str, Mutation, str]] = [
    (
        "duplicate id",
        lambda d: d["entries"].append(copy.deepcopy(_entry(d, "slack"))),
        r"'slack'.*duplicate id",
    ),
    (
        "duplicate alias",
        lambda d: _entry(d, "discord")["aliases"].append("slack"),
        r"'discord'.*'slack'",
    ),
    (
        "alias differing in case",
        lambda d: _entry(d, "discord")["aliases"].append("SLACK"),
        r"'discord'.*'slack'",
    ),
    (
        "bad id",
        lambda d: _entry(d, "trello").update(id="Trello-Boards"),
        r"'Trello-Boards'.*snake_case",
    ),
    (
        "empty aliases",
        lambda d: _entry(d, "asana").update(aliases=[]),
        r"'asana'.*aliases are empty",
    ),
    ("blank alias", lambda d: _entry(d, "asana")["aliases"].append("  "), r"'asana'.*blank"),
    (
        "schema not an object",
        lambda d: _entry(d, "jira").update(config_schema={"type": "string"}),
        r"'jira'.*type 'object'",
    ),
    (
        "schema without properties",
        lambda d: _entry(d, "jira").update(config_schema={"type": "object"}),
        r"'jira'.*properties",
    ),
    (
        "open schema",
        lambda d: _entry(d, "jira")["config_schema"].update(additionalProperties=True),
        r"'jira'.*additionalProperties",
    ),
    (
        "unbounded string",
        lambda d: _entry(d, "notion")["config_schema"]["properties"]["parent"].pop("maxLength"),
        r"'notion'.*'parent'.*maxLength",
    ),
    ("unknown kind", lambda d: _entry(d, "gmail").update(kind="robot"), r"'gmail'.*kind"),
    ("unknown field", lambda d: _entry(d, "gmail").update(colour="red"), r"'gmail'.*colour"),
    ("not an entry", lambda d: d["entries"].append("oops"), r"entry '#\d+'"),
]


@pytest.mark.parametrize(
    ("mutate", "message"), [pytest.param(m, r, id=name) for name, m, r in BROKEN]
)
def test_invalid_data_raises_an_error_naming_the_entry(mutate: Mutation, message: str):
    data = _data()
    mutate(data)
    with pytest.raises(CatalogueError, match=message):
        parse_catalogue(data)


def test_data_without_entries_is_rejected():
    with pytest.raises(CatalogueError, match="entries"):
        parse_catalogue({"version": 1})


def test_the_packaged_data_round_trips():
    assert parse_catalogue(_data()) == CATALOGUE
