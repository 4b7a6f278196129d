"""`planwire demo` shows the whole build: the first step, and the last step's completion."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from planwire.demo import play

pytestmark = pytest.mark.e2e


async def test_the_demo_prints_every_step_from_the_first_to_the_last_completion(stack):
    out = io.StringIO()
    state = await play(stack.gateway_url, Console(file=out, width=300, color_system=None))
    text = out.getvalue()
    assert state["phase"] == "completed", text
    steps = re.findall(r"step (\d+)/(\d+) (\S+): (\w+)", text)
    total = int(steps[0][1])
    assert ("1", str(total)) in {(i, n) for i, n, _r, _s in steps}, text
    completed = {int(i) for i, _n, _r, status in steps if status == "completed"}
    assert completed == set(range(1, total + 1)), text
