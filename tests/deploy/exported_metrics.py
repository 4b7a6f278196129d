"""Print, as JSON, every metric series name and label the code registers at import.

    python -m tests.deploy.exported_metrics

Run in a subprocess by the tests: importing every service's wiring (the specialist runtime
with `--all`) would otherwise leave module state behind in the test process.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys

from prometheus_client import REGISTRY

PACKAGES = ("shared", "services", "planwire")


def import_everything() -> None:
    """Metrics register when their module is imported; import every module that may define one."""
    sys.argv = ["planwire", "--all"]  # the specialist runtime reads its runners from argv
    for package in PACKAGES:
        root = importlib.import_module(package)
        for module in pkgutil.walk_packages(root.__path__, f"{package}."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)


def exposed_names() -> list[str]:
    """Names a scrape can contain. The registry also maps a counter's or histogram's bare
    family name to it, which never appears in a scrape: those are left out."""
    bare = ("counter", "histogram", "summary")
    return sorted(
        name
        for name, c in REGISTRY._names_to_collectors.items()
        if not (getattr(c, "_type", "gauge") in bare and name == getattr(c, "_name", None))
    )


def label_names() -> list[str]:
    return sorted(
        {
            label
            for c in set(REGISTRY._names_to_collectors.values())
            for label in getattr(c, "_labelnames", ())
        }
    )


if __name__ == "__main__":
    import_everything()
    print(json.dumps({"names": exposed_names(), "labels": label_names()}))
