"""The specialist catalogue: validated data plus the rules that find items in user text."""

from catalogue.matcher import MatchResult, detect, evidence, find_mentions, names
from catalogue.removals import removal_cue
from catalogue.model import Catalogue, CatalogueEntry, CatalogueError, load_catalogue, parse_catalogue

__all__ = [
    "Catalogue",
    "CatalogueEntry",
    "CatalogueError",
    "MatchResult",
    "detect",
    "evidence",
    "find_mentions",
    "load_catalogue",
    "names",
    "removal_cue",
    "parse_catalogue",
]
