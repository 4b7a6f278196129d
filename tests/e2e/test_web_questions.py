"""A conversation that helps, in a real browser (Debian's Chromium, headless) on the real
embedded stack: a required value nobody gave is asked for, the answer fills it, and the
confirmation says the flow in order, each step's values and the conditions, with what was
left out (issue 30).

Screenshots: artifacts/web/<test>/.
"""

from __future__ import annotations

import json

import pytest
import pytest_asyncio
from playwright.async_api import expect

from tests.e2e.web import Shots, assistant, chromium, new_conversation, opened, say

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

DESCRIBED = "When a new order comes in on Shopify, post the order number and the total in Slack."
CHANNEL = "Which Slack channel should it post to?"
ASIDE = "We thought about Discord too, but leave Discord out, nobody reads it."


@pytest_asyncio.fixture(scope="module")
async def browser():
    async with chromium() as launched:
        yield launched


@pytest.fixture
def shots(request):
    return Shots(request.node.name)


async def test_a_missing_value_is_asked_the_answer_fills_it_and_the_summary_says_the_flow(
    stack, browser, shots
):
    async with opened(browser, stack.gateway_url + "/") as page:
        await new_conversation(page)
        await say(page, DESCRIBED)
        await expect(assistant(page).last).to_contain_text("Added: Shopify, Slack.")
        await expect(assistant(page).last).to_contain_text(CHANNEL)
        await expect(page.locator("#hints li", has_text=CHANNEL)).to_have_count(1)
        await shots.take(page, "asked")

        await say(page, "#orders")
        await expect(page.locator("#hints li", has_text=CHANNEL)).to_have_count(0)
        assert CHANNEL not in await assistant(page).last.inner_text()
        await say(page, "Only orders over 100, please.")
        await say(page, ASIDE)
        await expect(assistant(page).last).to_contain_text('Left out Discord ("We thought')
        await say(page, "that's all")

        summary = page.locator("#confirmation-text")
        await expect(page.locator("#confirmation")).to_be_visible()
        await expect(summary).to_contain_text("Starts: Shopify (new order)")
        # Each step with the values the user gave, and the condition they set.
        await expect(summary).to_contain_text("1. Slack: post a message")
        await expect(summary).to_contain_text("channel #orders")
        await expect(summary.get_by_text("Only when")).to_contain_text("100")
        await expect(summary).to_contain_text(f'Left out: Discord ("{ASIDE.rstrip(".")}")')
        assert "To fill in later" not in await summary.inner_text()
        await shots.take(page, "confirmation")

        await page.get_by_role("button", name="Confirm").click()
        await expect(page.locator("#workflow")).to_be_visible()
        document = json.loads(await page.locator("#workflow-doc").text_content())
        slack = next(n for n in document["nodes"] if n.get("specialist") == "slack")
        assert slack["config"]["channel"] == "#orders", slack
        await shots.take(page, "workflow")


async def test_a_value_still_missing_when_the_user_is_done_is_to_fill_in_later(
    stack, browser, shots
):
    async with opened(browser, stack.gateway_url + "/") as page:
        await new_conversation(page)
        await say(page, DESCRIBED)
        await say(page, "ship it")
        summary = page.locator("#confirmation-text")
        await expect(page.locator("#confirmation")).to_be_visible()
        await expect(summary).to_contain_text(f"To fill in later: {CHANNEL}")
        await shots.take(page, "to-fill-in-later")
