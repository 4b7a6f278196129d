"""docs/asyncapi/ is what `planwire.docs.generate` writes from today's wiring."""

from __future__ import annotations

import json
import os
import sys

from deploy.inventory import dns_name, runners
from planwire import docs
from tests.deploy.tools import ROOT, run

COMMITTED = ROOT / "docs/asyncapi"


def test_committed_documents_match_a_fresh_generation(tmp_path):
    # In a subprocess: generating imports every service's wiring (module state we do not
    # want left behind in the test process).
    result = run(
        [sys.executable, "-m", "planwire.docs", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    written = sorted(tmp_path.glob("*.json"))
    assert [p.stem for p in written] == sorted(docs.SERVICES)
    assert sorted(p.name for p in written) == sorted(p.name for p in COMMITTED.glob("*.json"))
    drifted = [p.name for p in written if p.read_text() != (COMMITTED / p.name).read_text()]
    assert not drifted, f"stale AsyncAPI documents (run `python -m planwire.docs`): {drifted}"


def test_documents_are_asyncapi_3_and_name_their_topics():
    for service in docs.SERVICES:
        doc = json.loads((COMMITTED / f"{service}.json").read_text())
        assert doc["asyncapi"] == "3.0.0"
        assert doc["servers"]["development"]["host"] == docs.SERVER_HOST
        assert doc["channels"], service


def test_the_specialist_document_lists_every_runner_command_topic():
    doc = json.loads((COMMITTED / "specialist.json").read_text())
    addresses = {c["address"] for c in doc["channels"].values()}
    assert {f"{dns_name(r)}.run-step.v1" for r in runners()} <= addresses
    assert "specialist.step-completed.v1" in addresses
