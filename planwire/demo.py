"""`planwire demo`: a short scripted conversation through the gateway, on the embedded stack."""

from __future__ import annotations

import asyncio
import time
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
            final = await session.wait_for(
                lambda e: show(console, e) and e.type in FINAL_EVENTS, timeout_s=120
            )
            console.print(
                f"[bold]{final.type}[/]: {final.data.get('summary') or final.data.get('reason')}"
            )
        state = await session.state()
    console.print("[bold]notes:[/]", state["notes"])
    return state


async def exchange(session: SessionClient, console: Console, text: str) -> StreamEvent:
    """Send one user message and print the reply."""
    console.print(f"[cyan]user:[/] {text}")
    reply = await session.say(text)
    console.print(f"[green]planwire ({reply.data['kind']}):[/] {reply.data['text']}")
    return reply


def show(console: Console, event: StreamEvent) -> bool:
    """Print a progress event as it streams by; always True so it can sit in a predicate."""
    if event.type == "progress":
        data = event.data
        console.print(
            f"  step {data['node_index'] + 1}/{data['total']} {data['runner']}: {data['status']}"
        )
    return True


def run_demo(settings: ModelSettings | None = None) -> dict[str, Any]:
    """Start the embedded stack, play the demo, stop everything."""
    from planwire.stack import EmbeddedStack

    console = Console()
    started = time.monotonic()
    with EmbeddedStack(settings) as stack:
        console.print(f"stack up in {time.monotonic() - started:.1f}s; gateway {stack.gateway_url}")
        state = asyncio.run(play(stack.gateway_url, console))
    console.print(f"demo finished in {time.monotonic() - started:.1f}s")
    return state
