"""Browser-test kit: Debian's Chromium driven headless by Playwright, and the page's helpers.

Playwright's own browser download does not work here (and is not needed): the tests launch
`/usr/bin/chromium` (Debian package `chromium`, installed by .ci/install-system-deps.sh).
Screenshots of each state go under `artifacts/web/<test>/`; the run prints the folder.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright, expect

from planwire.stack import EmbeddedStack

CHROMIUM = os.environ.get("PLANWIRE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
WAIT_MS = 60_000

expect.set_options(timeout=WAIT_MS)


@asynccontextmanager
async def chromium():
    """One headless Chromium for a test module."""
    if not os.access(CHROMIUM, os.X_OK):
        raise RuntimeError(f"{CHROMIUM} is missing: run `bash .ci/install-system-deps.sh`")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


class Shots:
    """Numbered screenshots of one test's states."""

    def __init__(self, name: str) -> None:
        self.folder = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.count = 0

    async def take(self, page: Page, state: str) -> Path:
        self.count += 1
        path = self.folder / f"{self.count:02d}-{state}.png"
        await page.screenshot(path=path, full_page=True)
        return path


@asynccontextmanager
async def opened(browser: Browser, url: str):
    """A fresh browser context (its own cookies) with the page loaded."""
    context = await browser.new_context(
        viewport={"width": 1360, "height": 900}, accept_downloads=True
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    try:
        yield page
    finally:
        await context.close()
    assert not errors, f"the page threw: {errors}"


def assistant(page: Page):
    return page.locator("#messages li.assistant")


async def say(page: Page, text: str) -> None:
    """Type a message, press Enter, wait for planwire's reply to it."""
    replies = await assistant(page).count()
    await page.locator("#message").fill(text)
    await page.locator("#message").press("Enter")
    await expect(assistant(page)).to_have_count(replies + 1)


async def new_conversation(page: Page) -> str:
    """Start a conversation from the page; returns its session id."""
    await page.get_by_role("button", name="New conversation").click()
    await expect(page.locator("#connection")).to_have_text("Live")
    return page.url.split("#s=", 1)[1]


async def chip_names(page: Page, list_id: str) -> list[str]:
    return [t.strip() for t in await page.locator(f"#{list_id} li").all_inner_texts()]


async def step_states(page: Page) -> dict[str, str]:
    """Each box of the build, by step (an app's id, or "save"), with its state."""
    nodes = page.locator(".step")
    ids = [await n.get_attribute("data-step") for n in await nodes.all()]
    states = [await n.get_attribute("data-state") for n in await nodes.all()]
    assert len(ids) == len(set(ids)), f"a step drawn twice: {ids}"
    return dict(zip(ids, states, strict=True))


def child(stack: EmbeddedStack, name: str):
    return next(c for c in stack.services if c.name == name)


class Cuttable:
    """A TCP proxy in front of the gateway whose line can be cut: open connections are
    closed and new ones refused (the browser sees the stack vanish) until it is restored."""

    def __init__(self, target_url: str) -> None:
        host, port = target_url.removeprefix("http://").rsplit(":", 1)
        self.target = (host, int(port))
        self.server: asyncio.Server | None = None
        self.port = 0
        self.links: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> Cuttable:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def cut(self) -> None:
        """Close every open connection and stop listening."""
        assert self.server is not None
        self.server.close()
        for writer in list(self.links):
            writer.transport.abort()
        await self.server.wait_closed()

    async def restore(self) -> None:
        await self.start()  # same port: the page reconnects to the address it knows

    async def _serve(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.links |= {writer, up_writer}

        async def pipe(src, dst) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()
                self.links.discard(dst)

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
