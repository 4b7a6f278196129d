"""The specialist catalogue: validated data plus the rules that find items in user text."""

from catalog.matcher import (
    MatchResult,
    about,
    detect,
    evidence,
    find_mentions,
    names,
    of_family,
    taken_back_from,
)
from catalog.model import (
    Catalogue,
    CatalogueEntry,
    CatalogueError,
    load_catalogue,
    parse_catalogue,
)
from catalog.removals import removal_cue

__all__ = [
    "Catalogue",
    "CatalogueEntry",
    "CatalogueError",
    "MatchResult",
    "about",
    "detect",
    "evidence",
    "find_mentions",
    "load_catalogue",
    "names",
    "of_family",
    "parse_catalogue",
    "removal_cue",
    "taken_back_from",
]
