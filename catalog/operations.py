"""What each catalogue app can start a workflow with (events) and do (actions), as data.

`operations.json` lists, for every catalogue id, its events and actions, each with its own
config schema and the n8n node that performs it, plus the condition steps (`filter`, `if`).
It is checked once at load time, against the catalogue too, so that a missing app, an
unknown default or a schema a model could ramble in stops start-up with a message naming
the entry. `scripts/n8n_nodes.py` checks the n8n facts against n8n's node descriptions.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from catalog.model import ID_PATTERN, Catalogue, CatalogueError, load_catalogue
from catalog.schema_rules import check_config_schema

PACKAGED_FILE = "operations.json"
CONDITION_IDS = ("filter", "if")


class OperationsError(CatalogueError):
    """The operations data is unusable; the message names the offending entry."""


class N8nNode(BaseModel):
    """The n8n node that performs an operation: facts only (names and versions)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    type: str = Field(pattern=r"^n8n-nodes-base\.[A-Za-z0-9]+$")
    type_version: int | float = Field(alias="typeVersion", gt=0)
    resource: str | None = None
    operation: str | None = None
    # n8n parameters the operation fixes (dotted paths into collections), e.g. the event.
    values: dict[str, Any] = {}
    # Our config property -> the n8n parameter(s) its value fills.
    parameters: dict[str, str | tuple[str, ...]] = {}
    # n8n has no trigger node for the event: the node runs under a Schedule Trigger.
    poll: bool = False
    note: str | None = None


class Operation(BaseModel):
    """One event or action of an app (or a condition step), with the config it needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    config_schema: dict[str, Any]
    n8n: N8nNode

    @model_validator(mode="after")
    def _check(self) -> Operation:
        where = f"operation {self.id!r}"
        if not ID_PATTERN.match(self.id):
            raise OperationsError(f"{where}: id must be snake_case ([a-z][a-z0-9_]*)")
        if not self.name.strip():
            raise OperationsError(f"{where}: name is empty")
        problem = check_config_schema(self.config_schema)
        if problem:
            raise OperationsError(f"{where}: config_schema {problem}")
        unknown = set(self.n8n.parameters) - set(self.config_schema["properties"])
        if unknown:
            raise OperationsError(
                f"{where}: n8n parameters map unknown properties {sorted(unknown)}"
            )
        return self


class AppOperations(BaseModel):
    """Everything one catalogue id offers, and what to use when the user names no operation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    events: tuple[Operation, ...]
    actions: tuple[Operation, ...]
    default_event: str | None
    default_action: str | None

    @model_validator(mode="after")
    def _check(self) -> AppOperations:
        where = f"operations of {self.id!r}"
        ids = [op.id for op in (*self.events, *self.actions)]
        if not ids:
            raise OperationsError(f"{where}: no events and no actions")
        if len(set(ids)) != len(ids):
            raise OperationsError(f"{where}: an operation id is listed twice")
        _check_default(where, "default_event", self.default_event, self.events)
        _check_default(where, "default_action", self.default_action, self.actions)
        return self

    def event(self, id: str) -> Operation | None:
        """The event with this id, or None when the app does not offer it."""
        return next((op for op in self.events if op.id == id), None)

    def action(self, id: str) -> Operation | None:
        """The action with this id, or None when the app does not offer it."""
        return next((op for op in self.actions if op.id == id), None)


def _check_default(where: str, field: str, default: str | None, ops: tuple[Operation, ...]) -> None:
    # A default must be one of the list, and there must be one whenever the list has any.
    if default is None and ops:
        raise OperationsError(f"{where}: {field} is missing")
    if default is not None and default not in {op.id for op in ops}:
        raise OperationsError(f"{where}: {field} {default!r} is not one of its operations")


class Operations(BaseModel):
    """Every app's operations, with the condition steps; lookups by app id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    conditions: tuple[Operation, ...]
    apps: tuple[AppOperations, ...]
    _by_id: dict[str, AppOperations] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Operations:
        if tuple(sorted(c.id for c in self.conditions)) != tuple(sorted(CONDITION_IDS)):
            raise OperationsError(f"operations: conditions must be exactly {list(CONDITION_IDS)}")
        self._by_id = {app.id: app for app in self.apps}
        if len(self._by_id) != len(self.apps):
            raise OperationsError("operations: an app id is listed twice")
        return self

    def __getitem__(self, app_id: str) -> AppOperations:
        """The operations of this app; a KeyError names an id that has none."""
        try:
            return self._by_id[app_id]
        except KeyError:
            raise KeyError(f"{app_id!r} has no operations") from None

    @property
    def ids(self) -> tuple[str, ...]:
        """The app ids, in file order."""
        return tuple(app.id for app in self.apps)

    def condition(self, id: str) -> Operation:
        """The condition step `filter` or `if`."""
        return next(c for c in self.conditions if c.id == id)


def check_coverage(operations: Operations, catalogue: Catalogue) -> None:
    """Raise unless the apps are exactly the catalogue's ids: none missing, none unknown."""
    missing = sorted(set(catalogue.ids) - set(operations.ids))
    unknown = sorted(set(operations.ids) - set(catalogue.ids))
    if missing:
        raise OperationsError(f"operations: no entry for catalogue ids {missing}")
    if unknown:
        raise OperationsError(f"operations: ids not in the catalogue {unknown}")


def parse_operations(data: Any, catalogue: Catalogue | None = None) -> Operations:
    """Validate decoded operations data, and its coverage of `catalogue` (default: packaged)."""
    try:
        operations = Operations.model_validate(data)
    except ValidationError as exc:
        raise OperationsError(_reason(exc)) from exc
    check_coverage(operations, catalogue or load_catalogue())
    return operations


def _reason(exc: ValidationError) -> str:
    """Our own message if a validator raised one, else pydantic's first error with its place."""
    first = exc.errors()[0]
    inner = first.get("ctx", {}).get("error")
    if isinstance(inner, OperationsError):
        return str(inner)
    place = ".".join(str(part) for part in first["loc"])
    return f"operations: {place}: {first['msg']}"


def load_operations(path: Path | None = None) -> Operations:
    """The operations from `path`, or the packaged ones (read once and cached)."""
    if path is None:
        return _packaged()
    return _decode(Path(path).read_text(encoding="utf-8"), str(path))


@lru_cache(maxsize=1)
def _packaged() -> Operations:
    text = resources.files("catalog").joinpath(PACKAGED_FILE).read_text(encoding="utf-8")
    return _decode(text, PACKAGED_FILE)


def _decode(text: str, source: str) -> Operations:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OperationsError(f"{source}: not valid JSON ({exc})") from exc
    return parse_operations(data)


def operations_for(app_id: str) -> AppOperations:
    """The packaged operations of one catalogue id; KeyError for an unknown id."""
    return load_operations()[app_id]


def operations_table(operations: Operations) -> str:
    """The Markdown table of docs/workflow-format.md: each app's events and actions."""
    rows = ["| id | events (what starts a workflow) | actions (what it does) |", "|---|---|---|"]
    for app in operations.apps:
        events = _cell(app.events, app.default_event)
        actions = _cell(app.actions, app.default_action)
        rows.append(f"| `{app.id}` | {events} | {actions} |")
    return "\n".join(rows) + "\n"


def _cell(ops: tuple[Operation, ...], default: str | None) -> str:
    # The default is listed first and in bold: it is what a bare mention of the app means.
    ordered = sorted(ops, key=lambda op: op.id != default)
    names = [f"**{op.name}**" if op.id == default else op.name for op in ordered]
    return "; ".join(f"{name} (`{op.id}`)" for name, op in zip(names, ordered, strict=True)) or "—"


if __name__ == "__main__":  # the table for docs/workflow-format.md
    print(operations_table(load_operations()), end="")
