"""AsyncAPI 3.0 documents of every service, generated from the wired brokers themselves.

    python -m planwire.docs [OUT_DIR]     (the `planwire docs` command calls `generate`)

Importing a service's `main` builds its broker, subscribers and publishers but connects to
nothing (connections happen at start-up), so this runs offline. The documents are committed
under docs/asyncapi/ and tests/deploy/test_asyncapi.py fails when they drift from the code.
"""

from __future__ import annotations

import importlib
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

from faststream.specification import AsyncAPI

SERVICES = ("gateway", "trimmer", "annotator", "conversation", "classifier", "planner", "dispatcher", "specialist")
# The broker address depends on the environment; documents must not, or they would drift
# between machines. This is the compose stack's address.
SERVER_HOST = "kafka:9092"
SERVER_NOTE = "Set with PLANWIRE_KAFKA_BOOTSTRAP; kafka:9092 in docker-compose.yml."


def generate(out_dir: Path = Path("docs/asyncapi")) -> list[Path]:
    """Write `<service>.json` for every service into `out_dir`; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SERVICES:
        path = out_dir / f"{name}.json"
        path.write_text(json.dumps(document(name), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        written.append(path)
    return written


def document(service: str) -> dict[str, Any]:
    """One service's AsyncAPI document as plain JSON data, independent of the environment."""
    doc = _factory(_load(service)).to_specification().to_jsonable()
    for server in doc.get("servers", {}).values():
        server["host"], server["description"] = SERVER_HOST, SERVER_NOTE
    return doc


def _factory(module: ModuleType) -> Any:
    """The AsgiFastStream app's own specification; the gateway (FastAPI) has only a broker."""
    app = getattr(module, "app", None)
    if hasattr(app, "schema"):
        return app.schema
    summary = (module.__doc__ or "").strip().splitlines()[0]
    return AsyncAPI(module.broker, title="planwire gateway", description=summary, version="1.0.0")


def _load(service: str) -> ModuleType:
    if service == "specialist":
        return _load_specialist()
    return importlib.import_module(f"services.{service}.main")


def _load_specialist() -> ModuleType:
    """The `--all` runtime: every runner's command topic in one document.

    The module reads its runners from sys.argv at import, so it is imported (or re-imported,
    if something imported it with other runners) under `--all`. Its run-step subscribers are
    registered at start-up, so they are registered here, once, without starting anything.
    """
    with _argv("--all"):
        module = importlib.import_module("services.specialist.main")
        if set(module.runners) != set(module.select_runners(["--all"], module.catalogue.ids)):
            module = importlib.reload(module)
    subscribed = {topic for sub in module.broker.subscribers for topic in getattr(sub, "topic_names", ())}
    for runner in module.runners:
        if hasattr(module, "subscribe") and module.run_step_topic(runner).name not in subscribed:
            module.subscribe(runner)
    return module


@contextmanager
def _argv(*args: str) -> Iterator[None]:
    saved = sys.argv
    sys.argv = [saved[0] if saved else "planwire", *args]
    try:
        yield
    finally:
        sys.argv = saved


if __name__ == "__main__":
    for written in generate(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/asyncapi")):
        print(f"wrote {written}")
