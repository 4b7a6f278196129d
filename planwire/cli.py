"""The `planwire` command: run the embedded stack (`up`) or one service (`run`)."""

from __future__ import annotations

import importlib.util
import os
import runpy
import signal
import sys
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from planwire.procs import StackError, stop_within
from planwire.specs import parse_replicas, parse_services

if TYPE_CHECKING:
    from planwire.chaos import Verdict
    from planwire.stack import EmbeddedStack
    from shared.model.factory import ModelSettings

T = TypeVar("T")

app = typer.Typer(
    help="planwire: turn a conversation into a built workflow.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _every_command() -> None:
    """SIGTERM leaves every command the way Ctrl-C does, so a command that started a stack
    (eval, chaos, bench, demo, up) stops it on the way out instead of orphaning it."""
    signal.signal(signal.SIGTERM, _interrupt)


class Scripted(StrEnum):
    """Scripted annotator models for the eval (planwire/scripted.py)."""

    oracle = "oracle"
    liar = "liar"


class Backend(StrEnum):
    """Model backends `planwire up --model` accepts."""

    heuristic = "heuristic"
    local = "local"
    openai = "openai"
    chaos = "chaos"


@app.command()
def up(
    model: Backend | None = typer.Option(
        None, help="Model backend (default: $PLANWIRE_MODEL, else heuristic)."
    ),
    services: str = typer.Option(
        "", hidden=True, envvar="PLANWIRE_STACK_SERVICES", help="name=module,... (tests)"
    ),
    replicas: str = typer.Option(
        "",
        help="Processes per service, e.g. annotator=4,specialist=2 (topics they read get at "
        "least that many partitions).",
    ),
) -> None:
    """Start broker, Valkey and every service on loopback, and start again any that exits;
    data stays in $PLANWIRE_DATA_DIR (default ~/.local/share/planwire) from one run to the
    next. Ctrl-C or SIGTERM stops them all."""
    from planwire.datadir import default_data_dir
    from planwire.stack import EmbeddedStack  # late: keeps `planwire run` light
    from planwire.supervise import supervise

    stack = EmbeddedStack(
        _model_settings(model), replicas=_replicas(replicas), data_dir=default_data_dir()
    )
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        stack.start(parse_services(services) if services else None)
        _announce(stack)
        supervise(stack, lambda line: typer.echo(line, err=True))
    except KeyboardInterrupt:
        typer.echo("stopping", err=True)
    except StackError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        # A second Ctrl-C must not cut the shutdown short and leave children behind; a
        # stop that hangs is cut at a deadline instead.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_within()
        stack.stop()


def _replicas(text: str) -> dict[str, int]:
    """`--replicas` as a dict, or a usage error naming what is wrong."""
    try:
        return parse_replicas(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--replicas") from None


def _model_settings(model: Backend | None) -> ModelSettings:
    """The model settings from the environment, with `--model` over PLANWIRE_MODEL."""
    from shared.model.factory import ModelSettings  # late: pulls in the OpenAI client

    return ModelSettings(model=model.value) if model else ModelSettings()


def _interrupt(_signum: int, _frame: object) -> None:
    """SIGTERM takes the same way out as Ctrl-C, within a deadline (`stop_within`)."""
    stop_within()
    raise KeyboardInterrupt


def _announce(stack: EmbeddedStack) -> None:
    """Print where everything listens; tests read the `gateway:`, `data:` and `pids:` lines."""
    from planwire.datadir import PASSWORD_NAME
    from planwire.probes import without_password
    from planwire.stack import BROKER_WARNINGS
    from planwire.supervise import record_pids

    for name, url in stack.service_urls.items():
        typer.echo(f"{name}: {url}")
    typer.echo(
        f"broker: {stack.bootstrap}\nredis: {without_password(stack.redis_url)} "
        f"(password in {stack.data_dir / PASSWORD_NAME})\ndata: {stack.data_dir}\n"
        f"logs: {stack.log_dir}\npids: {record_pids(stack)}"
    )
    if warning := BROKER_WARNINGS.get(stack.broker):
        typer.echo(f"warning: {warning}", err=True)
    if stack.gateway_url:
        typer.echo(f"open {stack.gateway_url}/ in a browser for the page")
    typer.echo("planwire is up; Ctrl-C to stop.")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(
    service: str = typer.Argument(..., help="Service name, e.g. gateway, trimmer, specialist."),
    args: list[str] | None = typer.Argument(None, help="Arguments passed to the service."),
) -> None:
    """Run one service in the foreground (what container images do)."""
    module = f"services.{service}.main"
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise typer.BadParameter(f"no module {module}", param_hint="SERVICE")
    sys.argv = [module, *(args or [])]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


@app.command()
def demo(
    model: Backend | None = typer.Option(
        None, help="Model backend (default: $PLANWIRE_MODEL, else heuristic)."
    ),
    open_page: bool = typer.Option(
        False,
        "--open",
        help="Then open the conversation in a browser and keep the stack up until Ctrl-C.",
    ),
) -> None:
    """Start the embedded stack, play a short conversation to a built workflow, stop."""
    from planwire.demo import run_demo

    settings = _model_settings(model)
    signal.signal(signal.SIGTERM, _interrupt)  # SIGTERM stops the stack like Ctrl-C does
    try:
        state = run_demo(settings, open_page=open_page)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except StackError as exc:  # e.g. the data folder is in use by a running `planwire up`
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if state["phase"] != "completed":
        raise typer.Exit(1)


# Replicas pay off when a turn waits on the model: the target is stated at 200 ms.
DEFAULT_REPLICA_LATENCY_MS = 200.0


@app.command()
def bench(
    sessions: str = typer.Option(
        "1,20", help="Concurrent session counts to measure, comma-separated (e.g. 1,20,50)."
    ),
    turns: int = typer.Option(10, min=1, help="Sequential turns each session plays."),
    idle: float = typer.Option(10.0, help="Seconds to sample idle CPU."),
    model: Backend | None = typer.Option(
        None, help="Model backend (default heuristic: measures the plumbing)."
    ),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the figures here."),
    broker: str | None = typer.Option(
        None, help="Embedded broker: noida or tansu (default: $PLANWIRE_EMBEDDED_BROKER)."
    ),
    model_latency_ms: float = typer.Option(
        0.0,
        min=0,
        help="Simulated model latency: every model call sleeps this long first (asynchronously, "
        "around the heuristic), so I/O-bound scaling can be measured.",
    ),
    replicas: str = typer.Option(
        "",
        help="Also measure a second stack with these replicas (e.g. annotator=4) and print the "
        "throughput ratio; without --model-latency-ms the model takes 200 ms a call.",
    ),
    saturate: bool = typer.Option(
        False, help="Then double the sessions until turns/s stops growing (saturation)."
    ),
    model_first_token_ms: float = typer.Option(
        0.0,
        min=0,
        help="Simulated streaming model: the conversation's reply starts after this long and "
        "streams (reply.delta); the bench reports the time to its first piece.",
    ),
    model_token_ms: float = typer.Option(
        0.0, min=0, help="Simulated streaming model: the time between a reply's pieces."
    ),
) -> None:
    """Measure the embedded stack: turn latency and throughput at each session count, where
    the time goes (handler time, Redis commands and CPU per turn), idle CPU, memory, start."""
    from planwire.bench import run_bench

    try:
        counts = [int(part) for part in sessions.split(",") if part.strip()]
    except ValueError:
        raise typer.BadParameter("--sessions takes whole numbers, e.g. 1,20") from None
    if not counts or min(counts) < 1:
        raise typer.BadParameter("--sessions needs at least one count of 1 or more")
    if broker:
        os.environ["PLANWIRE_EMBEDDED_BROKER"] = broker
    scaled = _replicas(replicas)
    if scaled and not model_latency_ms:
        model_latency_ms = DEFAULT_REPLICA_LATENCY_MS
    run_bench(
        _model_settings(model),
        sessions=counts,
        turns=turns,
        idle_s=idle,
        json_path=json_out,
        model_latency_ms=model_latency_ms,
        replicas=scaled,
        saturate=saturate,
        first_token_ms=model_first_token_ms,
        token_ms=model_token_ms,
    )


@app.command()
def load(
    streams: int = typer.Option(150, help="Event streams to try to open (two tenants)."),
    turns: int = typer.Option(60, help="Messages one tenant posts at once."),
    cap: int = typer.Option(50, help="Streams allowed per tenant."),
    total: int = typer.Option(100, help="Streams allowed in all."),
    rate: int = typer.Option(30, help="Turns allowed per tenant a minute."),
) -> None:
    """Print what the gateway's limits do under load on the embedded stack (docs/security.md)."""
    from planwire.load import run_load

    run_load(streams, turns, cap, total, rate)


@app.command()
def docs(
    out: Path | None = typer.Option(
        None, help="Write only the AsyncAPI documents, here (default: every doc, in place)."
    ),
) -> None:
    """Regenerate the AsyncAPI documents and the apps list (docs/apps.md, the README's
    table) from the code and the catalogue; run it from the repository."""
    from planwire.docs import generate, write_app_pages

    for path in generate(out) if out else [*generate(), *write_app_pages()]:
        typer.echo(path)


@app.command("eval")
def eval_(
    paths: list[Path] = typer.Argument(..., exists=True, help="Case files or folders of them."),
    report: Path | None = typer.Option(None, help="Write the JSON report here."),
    model: Backend | None = typer.Option(None, help="Model backend for the embedded stack."),
    gateway: str | None = typer.Option(
        None, envvar="PLANWIRE_GATEWAY_URL", help="Use a running gateway."
    ),
    concurrency: int = typer.Option(4, min=1, help="Cases played at once."),
    timeout: float = typer.Option(300.0, help="Seconds to wait for any one reply or result."),
    scripted: Scripted | None = typer.Option(
        None,
        help="Point the annotator at a scripted model: an oracle that proposes each case's "
        "answer with evidence, or a liar that proposes what the user never said.",
    ),
    compare: str | None = typer.Option(
        None,
        help="Also play the cases under this context policy (naive) and print prompt tokens "
        "per session and recall side by side; each policy runs on its own embedded stack.",
    ),
) -> None:
    """Play scripted conversations and score the compiled plans (../shared/eval/FORMAT.md)."""
    from planwire.evaluate import run_compare, run_eval
    from shared.policy import parse_policy

    if scripted and gateway:
        raise typer.BadParameter("--scripted starts its own stack; leave out --gateway")
    settings = _model_settings(model)
    if compare is not None:
        if gateway:
            raise typer.BadParameter("--compare starts a stack per policy; leave out --gateway")
        try:
            parse_policy(compare)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--compare") from None
        passed = run_compare(
            paths,
            settings,
            against=compare,
            report=report,
            concurrency=concurrency,
            timeout_s=timeout,
            scripted=scripted.value if scripted else None,
        )
        raise typer.Exit(0 if passed else 1)
    passed = run_eval(
        paths,
        settings,
        gateway_url=gateway,
        report=report,
        concurrency=concurrency,
        timeout_s=timeout,
        scripted=scripted.value if scripted else None,
    )
    raise typer.Exit(0 if passed else 1)


@app.command()
def chaos(
    paths: list[Path] = typer.Argument(
        None, help="Case files or folders (default ../shared/eval/cases)."
    ),
    sessions: int = typer.Option(8, min=1, help="Conversations played at once under faults."),
    seed: int = typer.Option(1, help="Seeds the cases' order and the kill plan: a run replays."),
    valkey: bool = typer.Option(True, help="Also kill and restart Valkey once (AOF on)."),
    broker: bool = typer.Option(
        True,
        help="Also kill and restart the broker once, where a kill loses nothing. Neither "
        "embedded broker qualifies: Tansu keeps its topics in memory, and noida-db writes "
        "records to disk up to half a second after acknowledging them.",
    ),
    model: Backend | None = typer.Option(None, help="Model backend (default heuristic)."),
    timeout: float = typer.Option(180.0, help="Seconds to wait for any one reply or result."),
    replicas: int = typer.Option(
        1,
        min=1,
        help="Processes of each service that calls a model (indexer, annotator, conversation, "
        "classifier, planner, specialist), in one consumer group; each is killed on its own.",
    ),
    kills_per_service: int = typer.Option(
        3, min=1, help="Kills of every service process (replicas included)."
    ),
) -> None:
    """Play scripted sessions while SIGKILLing every service process (3 times each) and Valkey;
    exit 0 only when no turn was lost, nothing was done twice and every workflow is as without
    faults."""
    import asyncio

    from planwire.chaos import figures
    from planwire.chaosrun import ChaosError, describe, model_replicas, run_chaos
    from planwire.evaluate import load_cases
    from planwire.stack import EmbeddedStack

    cases = load_cases(paths or [_default_cases()])
    if not cases:
        raise typer.BadParameter("no cases found", param_hint="PATHS")
    started = time.monotonic()
    stack = EmbeddedStack(_model_settings(model), replicas=model_replicas(replicas))
    once = tuple(
        n for n, on in (("valkey", valkey), (stack.broker, broker)) if on and stack.restartable(n)
    )

    def play() -> tuple[Verdict, dict[str, int]]:
        for line in describe(stack, once):
            typer.echo(line)
        return asyncio.run(
            run_chaos(
                stack,
                cases,
                sessions=sessions,
                seed=seed,
                once=once,
                timeout_s=timeout,
                kills_each=kills_per_service,
                log=typer.echo,
            )
        )

    result, kills = _on_stack(stack, play, ChaosError)
    for line in figures(result, kills):
        typer.echo(line)
    typer.echo(f"wall time: {time.monotonic() - started:.0f} s; logs: {stack.log_dir}")
    typer.echo(result.last_line())
    raise typer.Exit(0 if result.ok else 1)


@app.command()
def soak(
    minutes: float = typer.Option(30.0, min=0.05, help="How long to play, in minutes."),
    rate: float | None = typer.Option(
        None,
        min=0.01,
        help="Turns per second (default: half of the saturation rate a short ramp measures "
        "first with the same conversations).",
    ),
    sessions: int | None = typer.Option(
        None, min=1, help="Conversations at once (default: the ramp's saturation count)."
    ),
    sample_s: float = typer.Option(30.0, min=0.5, help="Seconds between RSS samples."),
    json_out: Path | None = typer.Option(None, "--json", help="Also write the report here."),
    model: Backend | None = typer.Option(None, help="Model backend (default heuristic)."),
    timeout: float = typer.Option(60.0, help="Seconds a reply may take before it is an error."),
    seed: int = typer.Option(1, help="Seeds the order of the conversations."),
    ramp_step_s: float = typer.Option(20.0, min=1.0, hidden=True, help="Seconds per ramp step."),
) -> None:
    """Play scripted conversations at a steady rate for MINUTES, sampling every process's
    RSS; exit 0 only with no lost turn, no error and no planwire process's RSS grown 10%
    from minute 5 (a sixth of a shorter run) to the end."""
    import asyncio
    import json

    from planwire.bench import BENCH_GATEWAY_ENV
    from planwire.evaluate import load_cases
    from planwire.soakrun import SoakError, run_soak
    from planwire.stack import EmbeddedStack

    cases = load_cases([_default_cases()])
    # The soak measures the plumbing over time, not the gateway's per-tenant limits.
    stack = EmbeddedStack(_model_settings(model), service_env={"gateway": BENCH_GATEWAY_ENV})
    report = _on_stack(
        stack,
        lambda: asyncio.run(
            run_soak(
                stack,
                cases,
                minutes=minutes,
                rate=rate,
                sessions=sessions,
                sample_s=sample_s,
                ramp_step_s=ramp_step_s,
                timeout_s=timeout,
                seed=seed,
                log=typer.echo,
            )
        ),
        SoakError,
    )
    errors = ", ".join(f"{k} {n}" for k, n in report.errors.items()) or "none"
    typer.echo(
        f"turns/s: {report.achieved} answered on average (paced at {report.rate}); "
        f"conversations completed: {report.sessions}; errors: {errors}; logs: {stack.log_dir}"
    )
    for line in report.table():
        typer.echo(line)
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=2) + "\n")
    typer.echo(report.last_line())
    raise typer.Exit(0 if report.ok else 1)


def _on_stack(stack: EmbeddedStack, work: Callable[[], T], failure: type[Exception]) -> T:
    """Start `stack`, do `work` on it and stop it whatever happens; a `failure` of the work
    or the stack's own error is printed and exits 2 (a run that could not be made)."""
    try:
        stack.start()
        return work()
    except (failure, StackError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        stack.stop()


def _default_cases() -> Path:
    """../shared/eval/cases (the shared eval corpus), else the one beside the repository."""
    here = Path("../shared/eval/cases")
    return here if here.is_dir() else Path(__file__).resolve().parents[2] / "shared/eval/cases"


keys_app = typer.Typer(help="API keys of the gateway (docs/security.md).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("new")
def keys_new(tenant: str = typer.Argument(..., help="The tenant the key authenticates.")) -> None:
    """Print a new key (for the tenant's client) and its stored form (for the gateway's
    PLANWIRE_API_KEYS, which then never holds the key itself)."""
    import json

    from services.gateway import auth

    if not tenant.strip():
        raise typer.BadParameter("the tenant needs a name", param_hint="TENANT")
    key = auth.new_key()
    stored = auth.stored_form(key)
    typer.echo(f"key: {key}\nstored: {stored}")
    typer.echo(f"PLANWIRE_API_KEYS entry: {json.dumps({stored: tenant})}")


dlq_app = typer.Typer(
    help="Dead letters: messages consumers parked in <topic>.dlq (planwire/dlq.py).",
    no_args_is_help=True,
)
app.add_typer(dlq_app, name="dlq")
BOOTSTRAP = typer.Option(
    "127.0.0.1:9092", envvar="PLANWIRE_KAFKA_BOOTSTRAP", help="The Kafka bootstrap servers."
)


@dlq_app.command("list")
def dlq_list(bootstrap: str = BOOTSTRAP) -> None:
    """Every dead-letter topic with letters: pending (not redriven) and total."""
    import asyncio

    from planwire import dlq

    found = asyncio.run(dlq.counts(bootstrap))
    shown = {topic: n for topic, n in found.items() if n[1]}
    for topic, (waiting, total) in shown.items():
        typer.echo(f"{topic}\tpending {waiting}\ttotal {total}")
    typer.echo(f"dlq: {sum(n[0] for n in shown.values())} pending in {len(shown)} topics")


@dlq_app.command("show")
def dlq_show(
    topic: str = typer.Argument(..., help="A dead-letter topic (`<topic>.dlq`)."),
    limit: int = typer.Option(20, min=1, help="Show at most this many."),
    as_json: bool = typer.Option(False, "--json", help="Print the letters as JSON."),
    bootstrap: str = BOOTSTRAP,
) -> None:
    """The pending letters of one topic: where, why (reason and error), and the body."""
    import asyncio

    from planwire import dlq

    try:
        letters = asyncio.run(dlq.pending(bootstrap, topic, limit))
    except LookupError as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(dlq.to_json(letters) if as_json else "\n".join(x.summary() for x in letters))


@dlq_app.command("redrive")
def dlq_redrive(
    topic: str = typer.Argument(..., help="A dead-letter topic (`<topic>.dlq`)."),
    limit: int | None = typer.Option(None, min=1, help="Redrive at most this many."),
    bootstrap: str = BOOTSTRAP,
) -> None:
    """Put pending letters back on the topic they came from (after fixing what parked them)."""
    import asyncio

    from planwire import dlq

    try:
        letters = asyncio.run(dlq.redrive(bootstrap, topic, limit))
    except LookupError as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(f"redrove {len(letters)} letters from {topic}")
