"""Only a record's owner writes it: the import graph of every service, checked.

Each module of `state/` declares `WRITERS` (what writes its record, and which services may
use it). A service that imports a writer it is not listed for fails here, and so does any
code outside `state/` that builds one of a record's keys itself.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from schemas.turn import Phase
from state import session
from tests.unit.test_keyspace import key_in

ROOT = Path(__file__).resolve().parents[2]
RECORDS = sorted(p.stem for p in (ROOT / "state").glob("*.py") if p.stem != "__init__")


def service_of(path: Path) -> str:
    return path.relative_to(ROOT).parts[1]


def writer_uses(path: Path, module: str, writers: set[str]) -> set[str]:
    """The writers of `state.<module>` a file reaches: imported by name, or as module attributes."""
    tree = ast.parse(path.read_text())
    aliases: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == f"state.{module}":
            used |= {a.name for a in node.names} & writers
        elif isinstance(node, ast.ImportFrom) and node.module == "state":
            aliases |= {a.asname or a.name for a in node.names if a.name == module}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == f"state.{module}"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in writers:
            base = ast.unparse(node.value)
            if base in aliases:
                used.add(node.attr)
    return used


@pytest.mark.parametrize("record", RECORDS)
def test_only_the_owner_imports_a_records_writer(record):
    writers: dict[str, set[str]] = importlib.import_module(f"state.{record}").WRITERS
    strangers = sorted(
        f"{path.relative_to(ROOT)} uses {name}"
        for path in (ROOT / "services").rglob("*.py")
        for name in writer_uses(path, record, set(writers))
        if service_of(path) not in writers[name]
    )
    assert strangers == []


def record_keys() -> dict[str, str]:
    """Every key pattern a record module builds, with the record."""
    found = {}
    for record in RECORDS:
        for node in ast.walk(ast.parse((ROOT / "state" / f"{record}.py").read_text())):
            if (key := key_in(node)) is not None and key != "pw:*":
                found[key] = record
    return found


def test_no_code_outside_state_builds_a_records_key():
    owned = record_keys()
    assert len(owned) >= 12, owned  # the walk sees the records' keys
    outside = sorted(
        f"{path.relative_to(ROOT)} builds {key} ({owned[key]})"
        for pkg in ("services", "shared", "planwire")
        for path in (ROOT / pkg).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if (key := key_in(node)) in owned
    )
    assert outside == []


def test_the_walk_would_notice_a_stranger_writing(tmp_path):
    sneaky = tmp_path / "handlers.py"
    sneaky.write_text("from state import notes\nw = notes.NotesWriter(None, 1)\n")
    assert writer_uses(sneaky, "notes", {"NotesWriter"}) == {"NotesWriter"}
    sneaky.write_text("from state.plan import PlanWriter, read\n")
    assert writer_uses(sneaky, "plan", {"PlanWriter"}) == {"PlanWriter"}


def test_every_phase_can_be_reached_and_every_transition_has_one_maker():
    reached = {Phase.GATHERING} | {to for _, to in session.TRANSITIONS}
    assert reached == set(Phase)
    services = {p.name for p in (ROOT / "services").iterdir() if (p / "main.py").is_file()}
    assert set(session.TRANSITIONS.values()) <= services
