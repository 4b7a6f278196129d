"""`planwire demo`: a short scripted conversation through the gateway, on the embedded stack."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
import webbrowser
from typing import TYPE_CHECKING, Any

from rich.console import Console

from planwire.client import SessionClient, StreamEvent

if TYPE_CHECKING:
    from shared.model.factory import ModelSettings

SCRIPT = (
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
    "That's everything, please confirm what you will build.",
)
CONFIRM = "Yes, that's everything. Please build it."
FINAL_EVENTS = {"workflow_completed", "workflow_failed"}


async def play(gateway_url: str, console: Console, *, full_path: bool = True) -> dict[str, Any]:
    """Play the script, print replies and progress; returns the final session state."""
    async with SessionClient(gateway_url) as session:
        for text in SCRIPT:
            await exchange(session, console, text)
        if full_path and (await session.state())["phase"] == "confirming":
            await exchange(session, console, CONFIRM)
            final = await follow_build(session, console)
            console.print(
                f"[bold]{final.type}[/]: {final.data.get('summary') or final.data.get('reason')}"
            )
        state = await session.state()
    console.print("[bold]notes:[/]", state["notes"])
    return {**state, "session_id": session.session_id}


async def exchange(session: SessionClient, console: Console, text: str) -> StreamEvent:
    """Send one user message and print the reply."""
    console.print(f"[cyan]user:[/] {text}")
    reply = await session.say(text)
    console.print(f"[green]planwire ({reply.data['kind']}):[/] {reply.data['text']}")
    return reply


async def follow_build(session: SessionClient, console: Console) -> StreamEvent:
    """Print every step's progress until the outcome, and the last step's completion.

    Progress is read from everything the stream delivered (`session.seen`), not only what is
    still queued: the first step often starts before the reply to the confirming message,
    which `say` waits for. The outcome and the last step's progress travel on different
    topics, so either may arrive first: after the outcome, wait briefly for the other.
    """
    printed: set[str] = set()

    def show_new(_event: object = None) -> bool:
        for line, event_id in progress_lines(session.seen, printed):
            printed.add(event_id)
            console.print(line)
        return True

    final = await session.wait_for(lambda e: show_new() and e.type in FINAL_EVENTS, 120)
    if final.type == "workflow_completed" and not last_step_done(session.seen):
        with contextlib.suppress(TimeoutError):
            await session.wait_for(lambda e: show_new() and last_step_done(session.seen), 5)
    show_new()
    return final


def progress_lines(events: list[StreamEvent], printed: set[str]) -> list[tuple[str, str]]:
    """`step i/n runner: status` for each progress event not printed yet, with its id."""
    return [
        (
            f"  step {e.data['node_index'] + 1}/{e.data['total']} {e.data['runner']}: {e.data['status']}",
            e.id,
        )
        for e in events
        if e.type == "progress" and e.id not in printed
    ]


def last_step_done(events: list[StreamEvent]) -> bool:
    """Whether the plan's last step reported completion."""
    return any(
        e.type == "progress"
        and e.data["status"] == "completed"
        and e.data["node_index"] + 1 == e.data["total"]
        for e in events
    )


def run_demo(settings: ModelSettings | None = None, *, open_page: bool = False) -> dict[str, Any]:
    """Start the embedded stack, play the demo, stop everything.

    With `open_page`, the played conversation is then opened in a browser (the gateway's
    page) and the stack stays up until Ctrl-C or SIGTERM.
    """
    from planwire.datadir import default_data_dir
    from planwire.stack import EmbeddedStack

    console = Console()
    started = time.monotonic()
    # The demo's conversation and workflow stay in the user's data folder, as `up`'s do.
    with EmbeddedStack(settings, data_dir=default_data_dir()) as stack:
        console.print(f"stack up in {time.monotonic() - started:.1f}s; gateway {stack.gateway_url}")
        console.print(f"data: {stack.data_dir}")
        state = asyncio.run(play(stack.gateway_url, console))
        console.print(f"demo finished in {time.monotonic() - started:.1f}s")
        if open_page:
            show_page(console, page_url(stack.gateway_url, state["session_id"]))
    return state


def page_url(gateway_url: str, session_id: str) -> str:
    """The page showing one conversation (its id in the fragment: never sent to a server)."""
    return f"{gateway_url}/#s={session_id}"


def show_page(console: Console, url: str) -> None:
    """Open the page in the user's browser (or say where it is) and wait for Ctrl-C/SIGTERM."""
    previous = signal.signal(signal.SIGTERM, _interrupt)  # the stack stops on the way out
    try:
        console.print(f"[bold]the conversation in a browser:[/] {url}", soft_wrap=True)
        if not webbrowser.open(url):
            console.print("(no browser found here: open the address above yourself)")
        console.print("the stack stays up for the page; Ctrl-C to stop.")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        console.print("stopping")
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt
