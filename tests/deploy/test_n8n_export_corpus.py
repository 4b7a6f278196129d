"""Every workflow the corpus builds exports to n8n JSON that n8n's node descriptions accept
(issue 31's acceptance). The fast suite checks every fourth case; this checks them all."""

from __future__ import annotations

from pathlib import Path

from catalog.n8n.descriptions import load_nodes
from tests.support.n8n_corpus import cases, exported


def test_every_corpus_workflow_exports_to_valid_n8n_json(n8n_nodes_base: Path) -> None:
    every = cases()
    built, failed = exported(every, load_nodes(n8n_nodes_base))
    print(
        f"{built} of {len(every)} corpus cases built a workflow; {built - len(failed)} exports valid"
    )
    assert built == len(every)
    assert failed == {}
