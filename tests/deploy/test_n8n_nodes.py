"""The n8n facts in catalog/operations.json hold against n8n's own node descriptions, and
the export's facts file (catalog/n8n/facts.json) is the one those descriptions give.

The `n8n-nodes-base` package is fetched once per run (the `n8n_nodes_base` fixture,
tests/support/n8n_package.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from catalog.n8n.export import to_n8n
from tests.deploy.tools import ROOT, run
from tests.unit.test_n8n_export import EVENT

SCRIPT = ROOT / "scripts" / "n8n_nodes.py"
FACTS = ROOT / "catalog" / "n8n" / "facts.json"


def check(package: Path, *extra: str):
    """Run the checker as a person would, from the repo root."""
    return run([sys.executable, str(SCRIPT), str(package), *extra])


def test_every_mapping_matches_a_real_node(n8n_nodes_base: Path) -> None:
    result = check(n8n_nodes_base)
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""
    assert " 0 problems" in result.stderr


def test_the_exports_facts_file_is_what_the_package_says(
    n8n_nodes_base: Path, tmp_path: Path
) -> None:
    written = tmp_path / "facts.json"
    result = check(n8n_nodes_base, "--facts", str(written))
    assert result.returncode == 0, result.stdout
    assert written.read_text() == FACTS.read_text(), (
        "catalog/n8n/facts.json is stale: python scripts/n8n_nodes.py PACKAGE "
        "--facts catalog/n8n/facts.json"
    )


def test_a_wrong_mapping_is_reported(n8n_nodes_base: Path, tmp_path: Path) -> None:
    data = json.loads((ROOT / "catalog" / "operations.json").read_text())
    gmail = next(app for app in data["apps"] if app["id"] == "gmail")
    gmail["events"][0]["n8n"]["parameters"]["query"] = "filters.search"
    gmail["actions"][0]["n8n"]["typeVersion"] = 9
    shopify = next(app for app in data["apps"] if app["id"] == "shopify")
    shopify["events"][0]["n8n"]["values"]["topic"] = "reviews/create"
    stripe = next(app for app in data["apps"] if app["id"] == "stripe")
    payouts = next(op for op in stripe["actions"] if op["id"] == "list_payouts")
    payouts["n8n"]["values"]["nodeCredentialType"] = "stripeKey"
    path = tmp_path / "operations.json"
    path.write_text(json.dumps(data))
    result = check(n8n_nodes_base, "--operations", str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any("gmail.events.new_email: parameter 'filters.search'" in line for line in lines)
    assert any(
        line.startswith("gmail.actions.send_email: n8n-nodes-base.gmail 9") for line in lines
    )
    assert any("'reviews/create' is not an option of 'topic'" in line for line in lines)
    assert any("credential type 'stripeKey' is not in the package" in line for line in lines)
    assert len(lines) == 4, lines


def test_an_exported_file_is_checked_as_a_person_would(
    n8n_nodes_base: Path, tmp_path: Path
) -> None:
    good, bad = tmp_path / "good.n8n.json", tmp_path / "bad.n8n.json"
    exported = to_n8n(EVENT)
    good.write_text(json.dumps(exported))
    exported["nodes"][2]["typeVersion"] = 99
    bad.write_text(json.dumps(exported))
    result = check(n8n_nodes_base, "--workflow", str(good), str(bad))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{bad}: Slack: Post a message to a channel: n8n-nodes-base.slack 99 is not a node n8n lists"
    ]
    assert "2 workflows checked, 1 problems" in result.stderr
