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


def owner_of(path: Path) -> str:
    """The service a file belongs to, or "shared"."""
    parts = path.relative_to(ROOT).parts
    return parts[1] if parts[0] == "services" else "shared"


def keys_in_code() -> dict[str, set[str]]:
    """Every key pattern the services and shared/ build, with who builds it."""
    found: dict[str, set[str]] = {}
    for path in [*(ROOT / "services").rglob("*.py"), *(ROOT / "shared").rglob("*.py")]:
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
                found.setdefault(key, set()).add(owner_of(path))
    return found


def keys_in_table() -> dict[str, set[str]]:
    """Every row of the keyspace table: its key pattern and the services named as writers or readers."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows: dict[str, set[str]] = {}
    for line in text.split("## Keyspace", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and cells[0].startswith("`pw:"):
            named = " ".join(cells[2:4])
            rows[canonical(cells[0].strip("`"))] = {
                s for s in [*SERVICES, "shared"] if re.search(rf"\b{s}\b", named)
            }
    return rows


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
