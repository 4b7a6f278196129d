"""The specialist catalogue as validated data, and loading it.

The catalogue is the code-owned list of what a workflow may use. It is checked once at
load time so that every service can trust it afterwards: a bad entry stops start-up with a
message naming that entry instead of surfacing later as a confusing match or plan.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from catalog.schema_rules import check_config_schema

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
PACKAGED_FILE = "catalogue.json"


class CatalogueError(ValueError):
    """The catalogue data is unusable; the message names the offending entry."""


class CatalogueEntry(BaseModel):
    """One specialist: an integration or a tool, with the config its specialist produces."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    kind: Literal["integration", "tool"]
    role: Literal["trigger", "source", "processor", "action"]
    also_acts: bool = False  # a trigger/source that can also perform actions (send, write)
    # Items of one family stand in for each other ("email", "messaging"): "use Gmail instead"
    # replaces the noted email service, whatever else of the same role is noted.
    family: str | None = None
    # A step that reads files (a PDF, a photo) works on what arrives before any step that
    # works on text or numbers can: it runs first among the steps that work on the data.
    reads_files: bool = False
    name: str
    aliases: tuple[str, ...]
    config_schema: dict[str, Any]
    # The paraphrase lexicon (catalog/lexicon.py syntax): ways people refer to the item
    # without naming it ("text me" for SMS). A hit counts like an alias, after the aliases.
    phrases: tuple[str, ...] = ()
    # Generic nouns that point back at the item once it is noted ("drop the sheet"): they
    # can remove it, never add it.
    refs: tuple[str, ...] = ()
    # Aliases that are also ordinary words and name the item only in product context
    # (capitalised mid-sentence, after "in/on/to/via", or before one of `context`).
    needs_context: tuple[str, ...] = ()
    # Nouns that, right after an alias, make it the product ("Teams channel", "Linear issue").
    context: tuple[str, ...] = ()
    # Lexicon phrases in which an alias is the ordinary word ("cut me some slack").
    ordinary: tuple[str, ...] = ()
    # Word stems of what the item does ("mood", "tone" for sentiment): too loose to find a
    # reference alone, enough to check that a model's short quote is about the item.
    senses: tuple[str, ...] = ()

    @field_validator("aliases")
    @classmethod
    def _normalise(cls, aliases: tuple[str, ...]) -> tuple[str, ...]:
        # Matching is case-insensitive, so store one canonical spelling per phrase.
        return tuple(" ".join(alias.lower().split()) for alias in aliases)

    @model_validator(mode="after")
    def _check(self) -> CatalogueEntry:
        where = f"catalogue entry {self.id!r}"
        if not ID_PATTERN.match(self.id):
            raise CatalogueError(f"{where}: id must be snake_case ([a-z][a-z0-9_]*)")
        if not self.name.strip():
            raise CatalogueError(f"{where}: name is empty")
        _check_aliases(self.aliases, where)
        problem = check_config_schema(self.config_schema)
        if problem:
            raise CatalogueError(f"{where}: config_schema {problem}")
        return self


def _check_aliases(aliases: tuple[str, ...], where: str) -> None:
    if not aliases:
        raise CatalogueError(f"{where}: aliases are empty")
    # An alias without a letter or digit could never match on word boundaries.
    if any(not re.search(r"\w", alias) for alias in aliases):
        raise CatalogueError(f"{where}: an alias is blank or has no letters")
    if len(set(aliases)) != len(aliases):
        raise CatalogueError(f"{where}: an alias is listed twice")


class Catalogue(BaseModel):
    """Every entry, with lookups by id and by kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    entries: tuple[CatalogueEntry, ...]
    _by_id: dict[str, CatalogueEntry] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check_unique(self) -> Catalogue:
        _unique_ids(self.entries)
        _unique_aliases(self.entries)
        self._by_id = {entry.id: entry for entry in self.entries}
        return self

    def get(self, id: str) -> CatalogueEntry | None:
        return self._by_id.get(id)

    def __getitem__(self, id: str) -> CatalogueEntry:
        """The entry with this id; a KeyError names an id the catalogue does not have."""
        try:
            return self._by_id[id]
        except KeyError:
            raise KeyError(f"{id!r} is not in the catalogue") from None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(entry.id for entry in self.entries)

    @property
    def integrations(self) -> tuple[CatalogueEntry, ...]:
        return tuple(entry for entry in self.entries if entry.kind == "integration")

    @property
    def tools(self) -> tuple[CatalogueEntry, ...]:
        return tuple(entry for entry in self.entries if entry.kind == "tool")


def _unique_ids(entries: tuple[CatalogueEntry, ...]) -> None:
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            raise CatalogueError(f"catalogue entry {entry.id!r}: duplicate id")
        seen.add(entry.id)


def _unique_aliases(entries: tuple[CatalogueEntry, ...]) -> None:
    # One phrase naming two entries would make matching ambiguous.
    owner: dict[str, str] = {}
    for entry in entries:
        for alias in entry.aliases:
            key = alias.casefold()
            if owner.get(key, entry.id) != entry.id:
                raise CatalogueError(
                    f"catalogue entry {entry.id!r}: alias {alias!r} already names {owner[key]!r}"
                )
            owner[key] = entry.id


def parse_catalogue(data: Any) -> Catalogue:
    """Validate already-decoded catalogue data (a dict with `entries`)."""
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise CatalogueError("catalogue: expected an object with an 'entries' list")
    entries = [_parse_entry(raw, index) for index, raw in enumerate(data["entries"])]
    try:
        return Catalogue(version=data.get("version", 1), entries=tuple(entries))
    except ValidationError as exc:
        raise CatalogueError(_reason(exc, "catalogue")) from exc


def _parse_entry(raw: Any, index: int) -> CatalogueEntry:
    label = raw.get("id") if isinstance(raw, dict) and raw.get("id") else f"#{index}"
    try:
        return CatalogueEntry.model_validate(raw)
    except ValidationError as exc:
        raise CatalogueError(_reason(exc, f"catalogue entry {label!r}")) from exc


def _reason(exc: ValidationError, where: str) -> str:
    """Our own CatalogueError message if a validator raised one, else pydantic's first error."""
    first = exc.errors()[0]
    inner = first.get("ctx", {}).get("error")
    if isinstance(inner, CatalogueError):
        return str(inner)
    field = ".".join(str(part) for part in first["loc"])
    return f"{where}: {field or 'entry'}: {first['msg']}"


def load_catalogue(path: Path | None = None) -> Catalogue:
    """The catalogue from `path`, or the packaged one (read once and cached)."""
    if path is None:
        return _packaged()
    return _decode(Path(path).read_text(encoding="utf-8"), str(path))


@lru_cache(maxsize=1)
def _packaged() -> Catalogue:
    text = resources.files("catalog").joinpath(PACKAGED_FILE).read_text(encoding="utf-8")
    return _decode(text, PACKAGED_FILE)


def _decode(text: str, source: str) -> Catalogue:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{source}: not valid JSON ({exc})") from exc
    return parse_catalogue(data)
