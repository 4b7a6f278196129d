"""The packages stack one way: the CLI (`planwire/`) sits on top of the services and their
kit, and the contracts (`schemas/`) sit under everything, needing nothing but pydantic."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from tests.support.imports import ROOT, imported_modules, sources

BELOW_THE_CLI = ("services", "shared", "state", "schemas", "catalog")
# What a contract may build on: the standard library, pydantic, the other contracts.
CONTRACT_BASES = frozenset(sys.stdlib_module_names) | {"__future__", "pydantic", "schemas"}


def offenders(package: str, allowed: Callable[[str], bool]) -> list[str]:
    """`path: module` for every import in `package` whose top-level name `allowed` refuses."""
    return [
        f"{path.relative_to(ROOT)}: {module}"
        for path in sources(package)
        for module in sorted(imported_modules(path))
        if not allowed(module.partition(".")[0])
    ]


@pytest.mark.parametrize("package", BELOW_THE_CLI)
def test_nothing_under_the_cli_imports_it(package: str) -> None:
    assert sources(package), f"no sources found under {package}/"
    found = offenders(package, lambda top: top != "planwire")
    assert not found, "imports the CLI:\n" + "\n".join(found)


def test_the_contracts_import_only_the_standard_library_pydantic_and_each_other() -> None:
    found = offenders("schemas", lambda top: top in CONTRACT_BASES)
    assert not found, "a contract imports more than it may:\n" + "\n".join(found)


def test_the_walk_sees_the_imports_it_judges() -> None:
    # The CLI does import itself and the contracts do import pydantic: a walk that missed
    # them would pass the tests above whatever the code did.
    assert offenders("planwire", lambda top: top != "planwire")
    assert "pydantic" in {m for p in sources("schemas") for m in imported_modules(p)}
