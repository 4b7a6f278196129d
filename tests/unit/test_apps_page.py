"""The apps a user reads about (docs/apps.md, the README's table) are the apps planwire has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from catalog import load_catalogue
from catalog.apps_page import (
    anchor,
    apps_page,
    current_block,
    readme_summary,
    replace_block,
)
from catalog.operations import load_operations

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE, OPERATIONS = load_catalogue(), load_operations()
DEFAULTS = {a.id: {a.default_event, a.default_action} for a in OPERATIONS.apps}
STALE = "is stale: run `python -m planwire.docs` and commit what it writes"


def test_the_committed_apps_page_is_current() -> None:
    committed = (ROOT / "docs" / "apps.md").read_text()
    assert committed == apps_page(CATALOGUE, OPERATIONS), f"docs/apps.md {STALE}"


def test_the_readme_apps_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    assert current_block(readme) == readme_summary(CATALOGUE, OPERATIONS), f"README.md {STALE}"


def test_every_app_and_every_event_and_action_is_on_the_page() -> None:
    page = apps_page(CATALOGUE, OPERATIONS)
    for entry in CATALOGUE.entries:
        assert f"\n## {entry.name}\n" in page, entry.id
        section = page.split(f"\n## {entry.name}\n", 1)[1].split("\n## ", 1)[0]
        for op in (*OPERATIONS[entry.id].events, *OPERATIONS[entry.id].actions):
            assert f"{op.name}{'**' if op.id in DEFAULTS[entry.id] else ''} (`{op.id}`;" in section


def test_every_app_is_in_the_readme_table_once() -> None:
    table = readme_summary(CATALOGUE, OPERATIONS)
    for entry in CATALOGUE.entries:
        assert table.count(f"[{entry.name}](") == 1, entry.id


def test_the_readme_links_land_on_headings_of_the_apps_page() -> None:
    headings = re.findall(r"^#+ (.+)$", (ROOT / "docs" / "apps.md").read_text(), re.MULTILINE)
    targets = {anchor(h) for h in headings}
    links = re.findall(r"\(docs/apps\.md#([^)]+)\)", (ROOT / "README.md").read_text())
    assert len(links) >= len(CATALOGUE.entries)
    assert set(links) <= targets


def test_the_default_operation_is_the_one_in_bold() -> None:
    page = apps_page(CATALOGUE, OPERATIONS)
    gmail = page.split("\n## Gmail\n", 1)[1].split("\n## ", 1)[0]
    assert "- **New email matching a search** (`new_email`; n8n `gmailTrigger`)" in gmail
    assert "- **Send an email** (`send_email`" in gmail
    assert "- Add a label to the email (`add_label`" in gmail


def test_required_settings_and_choices_are_marked() -> None:
    page = apps_page(CATALOGUE, OPERATIONS)
    assert "  - `to` (required): Recipient address(es)" in page
    assert "One of: `equals`, `not_equals`" in page


def test_github_style_anchors() -> None:
    assert anchor("Amazon S3") == "amazon-s3"
    assert anchor("Tasks & issues (beta)") == "tasks--issues-beta"


def test_refreshing_the_readme_keeps_the_rest_of_it() -> None:
    readme = (ROOT / "README.md").read_text()
    refreshed = replace_block(readme, "| new table |\n")
    assert current_block(refreshed) == "| new table |\n"
    assert refreshed.replace("| new table |\n", current_block(readme)) == readme


def test_a_readme_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="no apps summary markers"):
        replace_block("# planwire\n", "| table |\n")
