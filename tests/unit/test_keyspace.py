"""docs/architecture.md's keyspace table matches the Redis keys the code builds."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = sorted(p.name for p in (ROOT / "services").iterdir() if (p / "main.py").is_file())


def canonical(pattern: str) -> str:
    """`pw:{session}:plan:{what}:{node_id}` and the code's `pw:*:plan:*:*` compare equal."""
    return re.sub(r"\{[^}]*\}", "*", pattern).replace("{", "").replace("}", "")


def key_in(node: ast.AST) -> str | None:
    """The key pattern an expression builds: a session_key(...) call or a "pw:..." string."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "session_key":
        parts = [a.value if isinstance(a, ast.Constant) else "*" for a in node.args[1:]]
        return ":".join(["pw:*", *parts])
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("pw:")
    ):
        return canonical(node.value)
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
        return canonical(text) if text.startswith("pw:") else None
    return None


def importers_of(module: str) -> set[str]:
    """The services with a file that imports `module` (or a name from it)."""
    found: set[str] = set()
    for path in (ROOT / "services").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [f"{node.module}.{a.name}" for a in node.names] + [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            if module in names:
                found.add(path.relative_to(ROOT).parts[1])
    return found


def owners_of(path: Path) -> set[str]:
    """Who touches the keys a file builds: its service, "shared", or a record module's users."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == "state":
        return importers_of(f"state.{path.stem}")
    return {parts[1] if parts[0] == "services" else "shared"}


def keys_in_code() -> dict[str, set[str]]:
    """Every key pattern the services, state/ and shared/ build, with who touches it."""
    found: dict[str, set[str]] = {}
    for path in [p for pkg in ("services", "shared", "state") for p in (ROOT / pkg).rglob("*.py")]:
        tree = ast.parse(path.read_text())
        pieces = {
            id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values
        }
        for node in ast.walk(tree):
            if id(node) in pieces:
                continue  # a piece of an f-string, read whole above
            if (
                key := key_in(node)
            ) is not None and key != "pw:*":  # "pw:*" is session_key's own prefix
                found.setdefault(key, set()).update(owners_of(path))
    return found


def keys_in_table() -> dict[str, set[str]]:
    """Every key of the keyspace table, with the services named as its owner or readers."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows: dict[str, set[str]] = {}
    for line in text.split("## Keyspace", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and "`pw:" in cells[1]:
            named = " ".join(cells[2:4])
            users = {s for s in [*SERVICES, "shared"] if re.search(rf"\b{s}\b", named)}
            for key in re.findall(r"`(pw:[^`]*)`", cells[1]):
                rows[canonical(key)] = users
    return rows


def record_owners() -> dict[str, str]:
    """The owner column of each `state.<record>` row."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    found = re.findall(r"^\| `state\.(\w+)` \|[^|]*\| ([^|]*) \|", text, re.M)
    return dict(found)


def test_the_table_names_each_records_writers_as_its_owner():
    import importlib

    owners = record_owners()
    records = sorted(p.stem for p in (ROOT / "state").glob("*.py") if p.stem != "__init__")
    assert sorted(owners) == records
    for record in records:
        writers = importlib.import_module(f"state.{record}").WRITERS
        named = {s for s in SERVICES if re.search(rf"\b{s}\b", owners[record])}
        assert named == set().union(*writers.values()), record


def test_every_key_in_the_code_is_in_the_table_and_back():
    code, table = keys_in_code(), keys_in_table()
    assert sorted(set(code) - set(table)) == [], (
        "keys the code uses that docs/architecture.md does not list"
    )
    assert sorted(set(table) - set(code)) == [], "keys docs/architecture.md lists that no code uses"


def test_only_the_services_named_on_a_row_touch_its_key():
    code, table = keys_in_code(), keys_in_table()
    strangers = {
        key: sorted(users - table[key])
        for key, users in code.items()
        if key in table and users - table[key]
    }
    assert strangers == {}
