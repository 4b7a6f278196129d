"""`planwire eval`: play scripted conversations, score the compiled plans and saved workflows.

The contract is ../shared/eval/FORMAT.md (v2): one line per case, a last line
`eval: P/N passed, recall R, precision P, forbidden F, extra E, shape S, prompt_tokens T`, an
optional JSON report, and exit status 0 only when every case passed. A case that errors or
never reaches a plan counts every expected id as missing and every shape check as failed, so
a broken run can never look better. The shape checks themselves are planwire/shape.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwire.client import SessionClient
from planwire.shape import shape_checks, shape_errors

if TYPE_CHECKING:
    from planwire import scripted
    from shared.model.factory import ModelSettings

NUDGE = "That's everything I need. Please confirm what you will build."
MAX_NUDGES = 2
FINAL_EVENTS = {"workflow_completed", "workflow_failed"}


@dataclass
class Case:
    """One scripted conversation, what its plan must (not) contain and how it is wired."""

    id: str
    turns: list[str]
    confirm: str
    expected: list[str]
    absent: list[str]
    allowed: list[str] = field(default_factory=list)
    trigger: str | None = None  # the catalogue id that starts the workflow; None: unchecked
    order: list[tuple[str, str]] = field(default_factory=list)  # [a, b]: a path leads a -> b
    values: dict[str, list[str]] = field(default_factory=dict)  # id or "*" -> texts in its config


@dataclass
class CaseResult:
    """How one case went, as the report records it."""

    id: str
    passed: bool
    missing: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    shape: list[str] = field(default_factory=list)  # shape errors in words (planwire.shape)
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_by_role: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    plan: list[str] = field(default_factory=list)
    error: str | None = None
    workflow: dict[str, Any] | None = None  # the saved document, as the gateway serves it
    confirmation: str = ""  # the summary the user was asked to confirm
    unconfirmed: list[str] = field(default_factory=list)  # stated values it does not show


def unconfirmed(case: Case, confirmation: str) -> list[str]:
    """The case's stated values (FORMAT.md v2 `values`) that the confirmation does not show:
    a person checking it could not see them."""
    shown = confirmation.lower()
    said = dict.fromkeys(v for texts in case.values.values() for v in texts)
    return [v for v in said if v.lower() not in shown]


def case_files(paths: list[Path]) -> list[Path]:
    """Case files, and every `*.json` in the given folders, in name order."""
    return [f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])]


def load_cases(paths: list[Path]) -> list[Case]:
    """The cases in the given files and folders."""
    return [case_from(json.loads(f.read_text())) for f in case_files(paths)]


def case_from(raw: dict[str, Any]) -> Case:
    """A Case from the FORMAT.md JSON."""
    expect = raw["expect"]
    expected = expect["integrations"] + expect["tools"]
    return Case(
        raw["id"],
        raw["turns"],
        raw["confirm"],
        expected,
        expect.get("absent", []),
        expect.get("allowed", []),
        expect.get("trigger"),
        [(a, b) for a, b in expect.get("order", [])],
        {key: list(texts) for key, texts in expect.get("values", {}).items()},
    )


def score(case: Case, plan: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Expected ids missing from the plan, absent ids in it, and ids nobody listed (extra)."""
    listed = {*case.expected, *case.absent, *case.allowed}
    missing = [i for i in case.expected if i not in plan]
    return (
        missing,
        [i for i in case.absent if i in plan],
        [i for i in dict.fromkeys(plan) if i not in listed],
    )


async def run_case(case: Case, gateway_url: str, timeout_s: float) -> CaseResult:
    """Play a case through the gateway; never raises, a failure is a failed result."""
    # Until a plan is scored, every expected id is missing and every shape check failed: an
    # error must not raise recall or hide a shape error.
    started, result = (
        time.monotonic(),
        CaseResult(
            case.id, passed=False, missing=list(case.expected), shape=shape_errors(case, None)
        ),
    )
    try:
        async with SessionClient(gateway_url, timeout_s=timeout_s) as session:
            result.turns = await converse(session, case)
            result.confirmation = confirmation_of(session)
            result.unconfirmed = unconfirmed(case, result.confirmation)
            final = await session.wait_for(lambda e: e.type in FINAL_EVENTS)
            state = await session.state()
            if final.type == "workflow_completed":
                result.workflow = await session.workflow(final.data["workflow_id"])
        result.plan = next((e.data["specialists"] for e in session.seen if e.type == "plan"), [])
        result.missing, result.forbidden, result.extra = score(case, result.plan)
        result.shape = shape_errors(case, result.workflow)
        clean = not (result.missing or result.forbidden or result.extra or result.shape)
        result.passed = final.type == "workflow_completed" and clean
        result.error = None if final.type == "workflow_completed" else final.data.get("reason")
        usage = state.get("usage", {})
        result.prompt_tokens, result.completion_tokens = (
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
        )
        result.prompt_tokens_by_role = {
            role: counts.get("prompt_tokens", 0)
            for role, counts in sorted(usage.get("by_role", {}).items())
        }
    except Exception as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = round(time.monotonic() - started, 2)
    return result


def confirmation_of(session: SessionClient) -> str:
    """The last reply that asked the user to confirm the workflow."""
    asked = [
        e.data.get("text", "")
        for e in session.seen
        if e.type == "reply" and e.data.get("kind") == "confirmation"
    ]
    return str(asked[-1]) if asked else ""


async def converse(session: SessionClient, case: Case) -> int:
    """The turns, the nudges FORMAT.md allows, then the confirmation; returns turns sent.

    A last turn that already confirmed ("yeah, that's everything" said to the summary)
    started the build: nothing more is sent, as a person would send nothing more.
    """
    for text in case.turns:
        await session.say(text)
    sent = len(case.turns)
    if (await session.state())["phase"] not in ("gathering", "confirming"):
        return sent
    for _ in range(MAX_NUDGES):
        if (await session.state())["phase"] == "confirming":
            break
        await session.say(NUDGE)
        sent += 1
    if (await session.state())["phase"] != "confirming":
        raise RuntimeError("the session never reached confirming")
    await session.say(case.confirm)
    return sent + 1


def summarize(results: list[CaseResult], cases: list[Case], model: str) -> dict[str, Any]:
    """The report's summary block."""
    expected = sum(len(c.expected) for c in cases)
    found = sum(len(c.expected) - len(r.missing) for c, r in zip(cases, results, strict=False))
    planned = sum(len(set(r.plan)) for r in results)
    shaped = [r for c, r in zip(cases, results, strict=False) if shape_checks(c)]
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "recall": round(found / expected, 2) if expected else 1.0,
        "precision": round(found / planned, 2) if planned else (1.0 if not expected else 0.0),
        "forbidden": sum(len(r.forbidden) for r in results),
        "extra": sum(len(r.extra) for r in results),
        "shape": sum(len(r.shape) for r in results),
        "shape_checks": sum(shape_checks(c) for c in cases),
        # The cases that make shape checks, and how many of those passed outright.
        "shape_cases": len(shaped),
        "shape_cases_passed": sum(r.passed for r in shaped),
        # Stated values a person could check in the confirmation, over the cases that state any.
        "values_stated": sum(len({v for t in c.values.values() for v in t}) for c in cases),
        "values_unconfirmed": sum(
            len(unconfirmed(c, r.confirmation)) for c, r in zip(cases, results, strict=False)
        ),
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "completion_tokens": sum(r.completion_tokens for r in results),
        "model": model,
    }


def case_line(result: CaseResult) -> str:
    """One printed line per case."""
    status = "PASS" if result.passed else "FAIL"
    detail = f"missing={result.missing} forbidden={result.forbidden} extra={result.extra}"
    detail += f" shape={result.shape}"
    detail += f" error={result.error}" if result.error else ""
    return f"{status} {result.id} ({result.turns} turns, {result.seconds}s) plan={result.plan} {detail}"


def last_line(summary: dict[str, Any]) -> str:
    """The closing line FORMAT.md specifies."""
    return (
        f"eval: {summary['passed']}/{summary['cases']} passed, recall {summary['recall']:.2f}, "
        f"precision {summary['precision']:.2f}, forbidden {summary['forbidden']}, extra {summary['extra']}, "
        f"shape {summary['shape']}, prompt_tokens {summary['prompt_tokens']}"
    )


def shape_line(summary: dict[str, Any]) -> str:
    """The line before the last: shape checks passed, and the cases with shape checks that
    passed outright (apps and shape), so a pass rate of each can be read."""
    checks = summary["shape_checks"]
    stated = summary.get("values_stated", 0)
    shown = stated - summary.get("values_unconfirmed", 0)
    return (
        f"shape checks: {checks - summary['shape']}/{checks} passed; "
        f"cases fully right: {summary['shape_cases_passed']}/{summary['shape_cases']}; "
        f"stated values in the confirmation: {shown}/{stated}"
    )


def report_json(results: list[CaseResult], summary: dict[str, Any]) -> str:
    """The `--report` JSON."""
    cases = [{k: v for k, v in asdict(r).items() if k != "error" or v} for r in results]
    return json.dumps({"cases": cases, "summary": summary}, indent=2)


async def evaluate(
    cases: list[Case],
    gateway_url: str,
    *,
    timeout_s: float,
    concurrency: int,
    on_result: Callable[[CaseResult], None] = lambda _: None,
) -> list[CaseResult]:
    """Run every case, a few at a time (each is its own session, so they do not interfere).

    `on_result` hears each case as it finishes; the list comes back in the cases' order.
    """
    gate = asyncio.Semaphore(concurrency)

    async def one(case: Case) -> CaseResult:
        async with gate:
            result = await run_case(case, gateway_url, timeout_s)
        on_result(result)
        return result

    return list(await asyncio.gather(*(one(c) for c in cases)))


def run_eval(
    paths: list[Path],
    settings: ModelSettings,
    *,
    gateway_url: str | None,
    report: Path | None,
    concurrency: int,
    timeout_s: float,
    scripted: str | None = None,
) -> bool:
    """Play the cases (on a fresh embedded stack unless a gateway is given), print, report.

    `scripted` ("oracle" or "liar") points the stack's annotator at a scripted model
    (planwire/scripted.py) that answers from the cases themselves.
    """
    # A line per case as it finishes: with a local model a run takes many minutes.
    printed = lambda result: print(case_line(result), flush=True)  # noqa: E731
    results, summary = play(
        paths,
        settings,
        gateway_url=gateway_url,
        concurrency=concurrency,
        timeout_s=timeout_s,
        scripted=scripted,
        on_result=printed,
    )
    return conclude(results, summary, report)


def conclude(results: list[CaseResult], summary: dict[str, Any], report: Path | None) -> bool:
    """Write the report when asked, print the closing lines; True when every case passed."""
    if report:
        report.write_text(report_json(results, summary))
    print(shape_line(summary), flush=True)
    print(last_line(summary), flush=True)
    return bool(summary["passed"] == summary["cases"])


def play(
    paths: list[Path],
    settings: ModelSettings,
    *,
    gateway_url: str | None,
    concurrency: int,
    timeout_s: float,
    scripted: str | None = None,
    env: dict[str, str] | None = None,
    on_result: Callable[[CaseResult], None] = lambda _: None,
) -> tuple[list[CaseResult], dict[str, Any]]:
    """The cases' results and summary, on a fresh embedded stack unless a gateway is given;
    `env` goes to every service of that stack."""
    from contextlib import ExitStack

    from planwire.specs import embedded_services
    from planwire.stack import EmbeddedStack

    cases = load_cases(paths)
    with ExitStack() as running:
        service_env = {spec.name: dict(env or {}) for spec in embedded_services(settings)}
        if scripted:
            server = running.enter_context(scripted_server(scripted, paths))
            service_env["annotator"] |= {
                "PLANWIRE_MODEL": "openai",
                "PLANWIRE_MODEL_BASE_URL": server.base_url,
            }
        url = (
            gateway_url
            or running.enter_context(EmbeddedStack(settings, service_env=service_env)).gateway_url
        )
        results = asyncio.run(
            evaluate(cases, url, timeout_s=timeout_s, concurrency=concurrency, on_result=on_result)
        )
    name = f"scripted-{scripted}" if scripted else settings.model_name
    summary = summarize(
        results, cases, name if scripted or settings.model != "heuristic" else "heuristic"
    )
    return results, summary


# With the heuristic backend no model is called, so no tokens are reported; under a compare
# it charges each call's prompt at the tokenizer-free estimate (shared/model/tokens.py).
ESTIMATE_ENV = {"PLANWIRE_MODEL_ESTIMATE_TOKENS": "1"}


def run_compare(
    paths: list[Path],
    settings: ModelSettings,
    *,
    against: str,
    report: Path | None,
    concurrency: int,
    timeout_s: float,
    scripted: str | None = None,
) -> bool:
    """Play the cases under the default context policy and under `against`, each on its own
    embedded stack, and print prompt tokens per session and recall side by side.

    True when every case passed under both policies.
    """
    from shared.policy import ENV, ContextPolicy, parse_policy

    policies = [ContextPolicy.DEFAULT, parse_policy(against)]
    runs: dict[str, tuple[list[CaseResult], dict[str, Any]]] = {}
    for policy in policies:
        printed = lambda r, p=policy: print(f"[{p}] {case_line(r)}", flush=True)  # noqa: E731
        runs[policy] = play(
            paths,
            settings,
            gateway_url=None,
            concurrency=concurrency,
            timeout_s=timeout_s,
            scripted=scripted,
            env={ENV: policy.value, **ESTIMATE_ENV},
            on_result=printed,
        )
        print(f"[{policy}] {last_line(runs[policy][1])}", flush=True)
    comparison = compare(runs, [p.value for p in policies])
    print(compare_text(comparison), flush=True)
    if report:
        report.write_text(json.dumps(comparison, indent=2))
    return all(s["passed"] == s["cases"] for _, s in runs.values())


def compare(
    runs: dict[str, tuple[list[CaseResult], dict[str, Any]]], policies: list[str]
) -> dict[str, Any]:
    """Prompt tokens per session and recall of each policy, per case and in all."""
    base, other = policies
    by_case: dict[str, dict[str, Any]] = {}
    for policy in policies:
        for result in runs[policy][0]:
            row = by_case.setdefault(result.id, {"id": result.id})
            row[f"{policy}_prompt_tokens"] = result.prompt_tokens
            row[f"{policy}_passed"] = result.passed
    for row in by_case.values():
        row["ratio"] = _ratio(row[f"{base}_prompt_tokens"], row[f"{other}_prompt_tokens"])
    summary: dict[str, Any] = {}
    for policy in policies:
        results, totals = runs[policy]
        summary[policy] = {
            "cases": totals["cases"],
            "passed": totals["passed"],
            "recall": totals["recall"],
            "prompt_tokens": totals["prompt_tokens"],
            "prompt_tokens_per_session": round(totals["prompt_tokens"] / max(len(results), 1), 1),
            "prompt_tokens_by_role": _by_role(results),
        }
    summary["ratio"] = _ratio(summary[base]["prompt_tokens"], summary[other]["prompt_tokens"])
    return {"policies": policies, "cases": list(by_case.values()), "summary": summary}


def _by_role(results: list[CaseResult]) -> dict[str, int]:
    """Prompt tokens of every case, by the role that spent them (step roles by kind)."""
    totals: dict[str, int] = {}
    for result in results:
        for role, tokens in result.prompt_tokens_by_role.items():
            kind = role.split(".", 1)[0]
            totals[kind] = totals.get(kind, 0) + tokens
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def _ratio(part: int, whole: int) -> float | None:
    """part / whole to two places; None when the whole is 0 (nothing was counted)."""
    return round(part / whole, 2) if whole else None


def compare_text(comparison: dict[str, Any]) -> str:
    """The side-by-side table and the closing `compare:` line."""
    base, other = comparison["policies"]
    lines = [
        f"{'case':<24} {base + ' tokens':>16} {other + ' tokens':>16} {base + '/' + other:>16}"
    ]
    for row in comparison["cases"]:
        lines.append(
            f"{row['id']:<24} {row[f'{base}_prompt_tokens']:>16} "
            f"{row[f'{other}_prompt_tokens']:>16} {row['ratio']!s:>16}"
        )
    s = comparison["summary"]
    for policy in (base, other):
        roles = ", ".join(f"{k} {v}" for k, v in s[policy]["prompt_tokens_by_role"].items())
        lines.append(f"{policy} prompt tokens by role: {roles}")
    lines.append(
        f"compare: {base} recall {s[base]['recall']:.2f}, prompt_tokens/session "
        f"{s[base]['prompt_tokens_per_session']}; {other} recall {s[other]['recall']:.2f}, "
        f"prompt_tokens/session {s[other]['prompt_tokens_per_session']}; "
        f"{base}/{other} {s['ratio']}"
    )
    return "\n".join(lines)


def scripted_server(kind: str, paths: list[Path]) -> scripted.ScriptedServer:
    """The loopback server of a scripted annotator model over the raw case files."""
    from catalog import load_catalogue
    from planwire import scripted

    catalogue = load_catalogue()
    raw = [json.loads(f.read_text()) for f in case_files(paths)]
    script = scripted.oracle(raw, catalogue) if kind == "oracle" else scripted.liar(catalogue)
    return scripted.ScriptedServer(script)
