"""The dispatcher has no model anywhere in its import graph: code walks the plan."""

from __future__ import annotations

from pathlib import Path

from tests.support.imports import ROOT, imported_modules

LOCAL_PACKAGES = ("services", "shared", "schemas", "catalog", "planwire")
FORBIDDEN = ("shared.model", "openai")


def module_file(name: str) -> Path | None:
    """The repo file behind a local module name, if it is one."""
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_closure(start: list[Path]) -> set[str]:
    """Every module reachable from `start` through local imports (third-party ones included, not followed)."""
    seen: set[str] = set()
    queue = list(start)
    visited: set[Path] = set()
    while queue:
        path = queue.pop()
        if path in visited:
            continue
        visited.add(path)
        for name in imported_modules(path):
            seen.add(name)
            parts = name.split(".")
            if parts[0] in LOCAL_PACKAGES:
                # A package import runs each parent package's __init__ too.
                queue.extend(
                    f for i in range(1, len(parts) + 1) if (f := module_file(".".join(parts[:i])))
                )
    return seen


def test_the_dispatcher_never_imports_a_model():
    files = sorted((ROOT / "services" / "dispatcher").glob("*.py"))
    assert files, "no dispatcher sources found"
    reached = import_closure(files)
    bad = sorted(m for m in reached if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))
    assert not bad, f"the dispatcher reaches the model through {bad}"


def test_the_import_walk_would_notice_a_model_import():
    # The walk must see through a service's own modules: the classifier does use the model.
    reached = import_closure(sorted((ROOT / "services" / "classifier").glob("*.py")))
    assert "shared.model" in reached
