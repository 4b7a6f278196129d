"""The n8n facts in catalog/operations.json hold against n8n's own node descriptions.

The `n8n-nodes-base` package is fetched with `npm pack` (no dependencies) into a temporary
folder, unless N8N_NODES_BASE_DIR names an unpacked copy. npm is a requirement of this
test, not an excuse to skip it: without npm or the registry it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from tests.deploy.tools import ROOT, run

SCRIPT = ROOT / "scripts" / "n8n_nodes.py"
DESCRIPTIONS = ("package/dist/types/nodes.json", "package/dist/types/credentials.json")


def pinned_version() -> str:
    """The release the script declares it was checked against."""
    for line in SCRIPT.read_text().splitlines():
        if line.startswith("N8N_NODES_BASE_VERSION"):
            return line.split("=", 1)[1].strip().strip('"')
    raise AssertionError("scripts/n8n_nodes.py declares no N8N_NODES_BASE_VERSION")


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An unpacked n8n-nodes-base (only its node and credential descriptions are needed)."""
    given = os.environ.get("N8N_NODES_BASE_DIR")
    if given:
        return Path(given)
    npm = shutil.which("npm")
    assert npm, "npm is needed to fetch n8n-nodes-base (or set N8N_NODES_BASE_DIR)"
    folder = tmp_path_factory.mktemp("n8n")
    packed = run([npm, "pack", f"n8n-nodes-base@{pinned_version()}", "--silent"], cwd=folder)
    assert packed.returncode == 0, packed.stderr
    with tarfile.open(folder / packed.stdout.strip().splitlines()[-1]) as tar:
        for member in DESCRIPTIONS:
            tar.extract(member, folder, filter="data")
    return folder / "package"


def check(package: Path, *extra: str):
    """Run the checker as a person would, from the repo root."""
    return run([sys.executable, str(SCRIPT), str(package), *extra])


def test_every_mapping_matches_a_real_node(package: Path) -> None:
    result = check(package)
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""
    assert " 0 problems" in result.stderr


def test_a_wrong_mapping_is_reported(package: Path, tmp_path: Path) -> None:
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
    result = check(package, "--operations", str(path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any("gmail.events.new_email: parameter 'filters.search'" in line for line in lines)
    assert any(
        line.startswith("gmail.actions.send_email: n8n-nodes-base.gmail 9") for line in lines
    )
    assert any("'reviews/create' is not an option of 'topic'" in line for line in lines)
    assert any("credential type 'stripeKey' is not in the package" in line for line in lines)
    assert len(lines) == 4, lines
