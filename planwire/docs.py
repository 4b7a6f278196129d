"""Generated documentation: AsyncAPI 3.0 documents of every service, generated from the
wired brokers themselves, and the list of apps a workflow can use (docs/apps.md and the
README's table), from the catalogue.

    python -m planwire.docs             every generated doc, in place (as `planwire docs`)
    python -m planwire.docs OUT_DIR     only the AsyncAPI documents, into OUT_DIR

Importing a service's `main` builds its broker, subscribers and publishers but connects to
nothing (connections happen at start-up), so this runs offline. The documents are committed
under docs/asyncapi/ and tests/deploy/test_asyncapi.py fails when they drift from the code;
tests/unit/test_apps_page.py does the same for the apps page and the README's table.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from catalog.apps_page import apps_page, readme_summary, replace_block
from catalog.model import load_catalogue
from catalog.operations import load_operations
from schemas import topology

SERVICES = tuple(n.name for n in topology.SERVICES)
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
        path.write_text(
            json.dumps(document(name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        )
        written.append(path)
    return written


def write_app_pages(root: Path = Path(".")) -> list[Path]:
    """Write docs/apps.md and the apps table between the README's markers, under `root`."""
    catalogue, operations = load_catalogue(), load_operations()
    page, readme = root / "docs" / "apps.md", root / "README.md"
    page.write_text(apps_page(catalogue, operations))
    readme.write_text(replace_block(readme.read_text(), readme_summary(catalogue, operations)))
    return [page, readme]


def document(service: str) -> dict[str, Any]:
    """One service's AsyncAPI document as plain JSON data, independent of the environment."""
    doc: dict[str, Any] = _factory(service).to_specification().to_jsonable()
    for server in doc.get("servers", {}).values():
        server["host"], server["description"] = SERVER_HOST, SERVER_NOTE
    return doc


def _factory(service: str) -> Any:
    """The service kit's specification of the service (`shared.service.Service`: a channel
    per topic, though one consumer reads them all), with the app's HTTP probes; the gateway
    (FastAPI) has no probe routes of FastStream's."""
    if service == "specialist":
        return _specialist_app().schema
    module = importlib.import_module(f"services.{service}.main")
    specification = module.service.specification()
    app = getattr(module, "app", None)
    for path, handler in getattr(getattr(app, "schema", None), "http_handlers", ()):
        specification.add_http_route(path, handler)
    return specification


def _specialist_app() -> Any:
    """The `--all` runtime: every runner's command topic in one document.

    Its run-step subscribers are registered at start-up, so they are registered here, once,
    without starting anything.
    """
    module = importlib.import_module("services.specialist.main")
    runners = module.select_runners([module.ALL], module.catalogue.ids)
    app = module.create_app(runners, shared_consumers=True)
    subscribed = {
        topic for sub in module.broker.subscribers for topic in getattr(sub, "topic_names", ())
    }
    for runner in runners:
        if module.RunStep.topic_for(runner).name not in subscribed:
            module.subscribe(runner)
    return app


if __name__ == "__main__":
    # With an OUT_DIR only the AsyncAPI documents are written (the freshness test's use):
    # the apps page and the README always live in the repository itself.
    if len(sys.argv) > 1:
        paths = generate(Path(sys.argv[1]))
    else:
        paths = [*generate(), *write_app_pages()]
    for written in paths:
        print(f"wrote {written}")
