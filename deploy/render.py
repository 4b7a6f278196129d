"""Render every generated deployment file from the code, or check the committed ones.

    python -m deploy.render          # write them
    python -m deploy.render --check  # exit 1 and name the files that drifted

Generated: docker-compose.yml, the topic list, the Prometheus scrape config, the Grafana
dashboard, k8s/base, and k8s/strimzi and k8s/valkey (deploy/k8s_durable.py). Hand-written and only read here: deploy/templates/,
deploy/prometheus/alerts.yml (copied into a PrometheusRule), k8s/overlays/.
"""

from __future__ import annotations

import sys
from pathlib import Path

from deploy.compose import render_compose
from deploy.dashboard import render_dashboard
from deploy.inventory import topics_text
from deploy.k8s import _dump, render_k8s
from deploy.k8s_durable import render_durable
from deploy.prometheus_config import render_prometheus

ROOT = Path(__file__).resolve().parent.parent


def render(root: Path = ROOT) -> dict[Path, str]:
    """Every generated file (path relative to the repo root) and its content."""
    files = {
        Path("docker-compose.yml"): render_compose(),
        Path("deploy/kafka/topics.txt"): topics_text(),
        Path("deploy/prometheus/prometheus.yml"): render_prometheus(),
        Path("deploy/grafana/dashboards/planwire.json"): render_dashboard(),
    }
    alerts = (root / "deploy/prometheus/alerts.yml").read_text()
    files |= {Path("k8s/base") / name: text for name, text in render_k8s(alerts).items()}
    files |= render_durable(_dump)
    return files


# Folders that hold nothing but rendered files: anything else there is left over from a
# runner or service that no longer exists.
GENERATED_DIRS = (Path("k8s/base/services"), Path("k8s/base/specialists"))


def stale(root: Path = ROOT) -> list[Path]:
    """Generated files that differ from a fresh render, are missing, or are left over."""
    files = render(root)
    changed = [path for path, text in files.items() if _read(root / path) != text]
    return changed + _leftovers(root, files)


def write(root: Path = ROOT) -> list[Path]:
    """Write the files that changed and delete leftovers; returns what it touched."""
    files = render(root)
    touched = stale(root)
    for path in touched:
        target = root / path
        if path not in files:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(files[path])
    return touched


def _leftovers(root: Path, files: dict[Path, str]) -> list[Path]:
    found = (
        p.relative_to(root)
        for d in GENERATED_DIRS
        if (root / d).is_dir()
        for p in (root / d).iterdir()
    )
    return sorted(p for p in found if p not in files)


def _read(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


def main(argv: list[str]) -> int:
    """`--check` reports drift; otherwise writes. Exit status 1 means something was stale."""
    if "--check" in argv:
        drifted = stale()
        for path in drifted:
            print(f"stale: {path} (run `python -m deploy.render`)")
        return 1 if drifted else 0
    for path in write():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
