"""The gateway's /openapi.json describes every answer: no empty response schema, and every
4xx a route's code can raise is listed, with the shared error model."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Iterator
from types import CodeType, FunctionType
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from services.gateway.main import app

SPEC = app.openapi()
# The app's routes as its OpenAPI document sees them (included routers flattened).
ROUTES = [
    c.route
    for c in iter_route_contexts(app.routes)
    if isinstance(c.route, APIRoute) and c.route.include_in_schema
]
# A status written where code raises it: HTTPException(404, ...), Refusal(429, ...).
RAISED = re.compile(r"\b(?:HTTPException|Refusal)\(\s*(4\d\d)\b")
HOST_GUARD = 421  # services/gateway/hosts.py answers it before any route


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref` followed into components."""
    while "$ref" in schema:
        schema = SPEC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def says_nothing(schema: dict[str, Any]) -> bool:
    """`{}`, or an object with no properties that takes anything: no shape at all."""
    schema = resolve(schema)
    if any(k in schema for k in ("anyOf", "oneOf", "allOf", "items", "properties", "enum")):
        return False
    if isinstance(schema.get("additionalProperties"), dict):
        return False
    return schema.get("type") in (None, "object")


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in SPEC["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_response_body_has_a_schema_that_says_something():
    empty = [
        (method.upper(), path, status, media)
        for path, method, operation in operations()
        for status, response in operation["responses"].items()
        for media, content in response.get("content", {}).items()
        if says_nothing(content.get("schema", {}))
    ]
    assert empty == []


def test_every_error_answer_is_the_shared_error_model():
    others = [
        (method.upper(), path, status)
        for path, method, operation in operations()
        for status, response in operation["responses"].items()
        if status.startswith(("4", "5"))
        and response["content"]["application/json"]["schema"]
        != {"$ref": "#/components/schemas/ErrorOut"}
    ]
    assert others == []


def gateway_functions() -> dict[str, list[Callable[..., Any]]]:
    """Every function and method of the gateway's modules, by name."""
    found: dict[str, list[Callable[..., Any]]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("services.gateway"):
            continue
        for _, obj in inspect.getmembers(module):
            members = [obj] if inspect.isfunction(obj) else []
            if inspect.isclass(obj) and obj.__module__ == name:
                members = [m for _, m in inspect.getmembers(obj, inspect.isfunction)]
            for fn in members:
                if fn.__module__.startswith("services.gateway"):
                    found.setdefault(fn.__name__, []).append(fn)
    return found


def names_in(code: CodeType) -> set[str]:
    """The global and attribute names a function's code uses, nested functions included."""
    nested = [c for c in code.co_consts if isinstance(c, CodeType)]
    return set(code.co_names).union(*(names_in(c) for c in nested))


def reachable(start: list[Callable[..., Any]]) -> list[Callable[..., Any]]:
    """The gateway's functions a route may run: its endpoint and dependencies, and whatever
    they name, followed by name (more than it runs, never less)."""
    by_name, seen, todo = gateway_functions(), [], list(start)
    while todo:
        fn = inspect.unwrap(todo.pop())
        if fn in seen or not isinstance(fn, FunctionType):
            continue
        seen.append(fn)
        for name in names_in(fn.__code__):
            todo.extend(by_name.get(name, []))
    return seen


def dependants(route: APIRoute) -> list[Dependant]:
    """The route's endpoint and every dependency under it."""
    found, todo = [], [route.dependant]
    while todo:
        found.append(todo.pop())
        todo += found[-1].dependencies
    return found


def can_answer(route: APIRoute) -> set[int]:
    """The 4xx statuses a route's code can answer with."""
    calls = [d.call for d in dependants(route) if d.call]
    raised = {int(s) for fn in reachable(calls) for s in RAISED.findall(source(fn))}
    takes_input = any(
        d.path_params or d.query_params or d.header_params or d.body_params
        for d in dependants(route)
    )
    if takes_input:
        raised.add(422)  # FastAPI's validation, answered by main.invalid_request
    if route.body_field is not None:
        raised.add(413)  # services/gateway/limits.py BodyLimit
    return raised | {HOST_GUARD}


def source(fn: Callable[..., Any]) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{sorted(r.methods)[0]} {r.path}")
def test_every_4xx_a_route_can_answer_is_documented(route):
    documented = {
        int(s)
        for method in route.methods
        for s in SPEC["paths"][route.path][method.lower()]["responses"]
    }
    assert can_answer(route) - documented == set()


def test_the_scan_finds_the_statuses_it_should():
    """The walk above reaches helpers and dependencies, so a new raise anywhere is seen."""
    messages = next(r for r in ROUTES if r.path.endswith("/messages"))
    assert {401, 404, 409, 413, 422, 429} <= can_answer(messages)
    steps = next(r for r in ROUTES if r.path.endswith("/steps"))
    assert can_answer(steps) == {401, 404, 421, 422, 429}
