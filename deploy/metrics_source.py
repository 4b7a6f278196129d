"""Which planwire_* metrics the code defines, found by reading the source (no imports).

Used at render time to choose between a preferred query and its fallback while a metric is
still being added; tests/deploy/test_dashboard.py checks the result against the metrics the
imported code really registers.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("shared", "services", "planwire", "catalog", "schemas")
DEFINITION = re.compile(
    r"\b(Counter|Gauge|Histogram|Summary)\(\s*(?:name\s*=\s*)?[\"'](planwire_\w+)[\"']"
)


@lru_cache(maxsize=4)
def defined_metrics(root: Path = ROOT) -> dict[str, str]:
    """Metric family name (without `_total`) -> its type, for every planwire_ definition."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for kind, name in DEFINITION.findall(path.read_text()):
                found[name.removesuffix("_total") if kind == "Counter" else name] = kind
    return found


def is_defined(name: str, root: Path = ROOT) -> bool:
    """Whether a family (`planwire_steps` or `planwire_steps_total` alike) is defined."""
    return name.removesuffix("_total") in defined_metrics(root)
