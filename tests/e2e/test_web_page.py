"""The web page in a real browser (Debian's Chromium, headless) on the real embedded stack.

One stack for the module (heuristic model backend, anonymous loopback mode) and one browser;
each test has its own browser context. Screenshots: artifacts/web/<test>/ (printed at the end).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys

import httpx
import pytest
import pytest_asyncio
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import expect
from redis.asyncio import Redis

from catalog import load_catalogue
from planwire.procs import Child, free_ports, stop_children
from planwire.stack import EmbeddedStack
from shared.redis import session_key
from tests.e2e.web import (
    Cuttable,
    Shots,
    assistant,
    child,
    chip_names,
    chromium,
    new_conversation,
    opened,
    say,
    step_states,
)

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

TURNS = [
    "Invoices arrive as PDF attachments in our Gmail inbox; pull the vendor and total out of each PDF.",
    "Every Monday morning post a digest of last week's invoices to Slack in #finance.",
    "That's everything, please confirm what you will build.",
]


@pytest_asyncio.fixture(scope="module")
async def web_stack():
    from shared.model.factory import ModelSettings

    async with EmbeddedStack(ModelSettings(model="heuristic")) as running:
        yield running


@pytest_asyncio.fixture(scope="module")
async def browser(web_stack):
    async with chromium() as launched:
        yield launched


@pytest.fixture
def shots(request):
    return Shots(request.node.name)


async def gather_to_confirmation(page, shots: Shots | None = None) -> str:
    session_id = await new_conversation(page)
    for text in TURNS:
        await say(page, text)
        if shots and text is TURNS[0]:
            await expect(page.locator("#integrations li")).not_to_have_count(0)
            await shots.take(page, "notes")
    await expect(page.locator("#confirmation")).to_be_visible()
    return session_id


async def every_step_done(page) -> None:
    """The plan is drawn (replayed from the stream after a reload) and every step is done."""
    await expect(page.locator(".step")).not_to_have_count(0)
    await expect(page.locator('.step:not([data-state="done"])')).to_have_count(0)


async def outbox_ids(stack: EmbeddedStack, session_id: str) -> list[str]:
    redis = Redis.from_url(stack.redis_url, decode_responses=True)
    try:
        return [i for i, _ in await redis.xrange(session_key(session_id, "outbox"))]
    finally:
        await redis.aclose()


async def shown_event_ids(page) -> list[str]:
    return await page.locator("#activity-log li").evaluate_all(
        "items => items.map(li => li.dataset.eventId)"
    )


async def test_a_conversation_becomes_a_saved_workflow_in_the_page(web_stack, browser, shots):
    async with opened(browser, web_stack.gateway_url + "/") as page:
        await shots.take(page, "empty")
        session_id = await gather_to_confirmation(page, shots)

        # Notes: catalogue names as chips, confidence against the threshold.
        names = {load_catalogue().get(i).name for i in ("gmail", "pdf_parser", "slack")}
        assert names <= set(await chip_names(page, "integrations")) | set(
            await chip_names(page, "tools")
        ), await page.locator(".notes").inner_text()
        # The notes are fetched after the confirmation is drawn: wait for them, not a moment.
        at_least_threshold = re.compile(r"^(8\d|9\d|100)% of the 80% needed")
        await expect(page.locator("#confidence-text")).to_have_text(at_least_threshold)
        assert float(await page.locator("#confidence").get_attribute("value")) >= 0.8
        await expect(page.locator("#confirmation-text")).to_contain_text("Slack")
        await shots.take(page, "confirmation")

        await page.get_by_role("button", name="Confirm").click()
        await expect(page.locator("#pipeline")).to_be_visible()
        await shots.take(page, "plan")
        await expect(page.locator("#workflow")).to_be_visible()
        await expect(page.locator("#phase")).to_have_text("— completed")
        states = await step_states(page)
        assert set(states.values()) == {"done"}, states
        fixed = await page.locator("#fixed-steps .step").evaluate_all(
            "s => s.map(e => e.dataset.nodeId)"
        )
        assert fixed == ["save", "summarizer"]
        dynamic = await page.locator("#dynamic-steps .step-name").all_inner_texts()
        assert any(name.startswith("Gmail") for name in dynamic), dynamic
        activity = await page.locator("#activity-log li").evaluate_all(
            "items => items.map(li => li.textContent)"
        )
        assert {"running", "done"} <= {t.rsplit(": ", 1)[-1] for t in activity}, activity
        await shots.take(page, "workflow")

        async with page.expect_download() as downloading:
            await page.get_by_role("button", name="Download workflow JSON").click()
        download = await downloading.value
        document = json.loads((await download.path()).read_text())
        assert download.suggested_filename.endswith(".json")
        assert {n.get("specialist") for n in document["nodes"]} >= {"gmail", "slack"}, document

        # The same workflow as an n8n file: n8n's nodes, wired in the workflow's order.
        async with page.expect_download() as downloading:
            await page.get_by_role("link", name="Export to n8n").click()
        exported = await downloading.value
        assert exported.suggested_filename == f"{document['workflow_id']}.n8n.json"
        n8n = json.loads((await exported.path()).read_text())
        nodes = {n["name"]: n for n in n8n["nodes"]}
        assert nodes["Scheduler: On a schedule"]["type"] == "n8n-nodes-base.scheduleTrigger"
        assert nodes["Slack: Post a message to a channel"]["parameters"]["channelId"]["value"] == (
            "#finance"
        )
        linked = {link["node"] for out in n8n["connections"].values() for link in out["main"][0]}
        assert linked == set(nodes) - {"Scheduler: On a schedule"}

        # The session list brings the conversation back after a reload, with nothing doubled.
        messages = await page.locator("#messages li").count()
        await page.reload()
        await expect(page.locator("#workflow")).to_be_visible()
        await expect(page.locator(f'#session-list a[href="#s={session_id}"]')).to_contain_text(
            "Invoices arrive"
        )
        await expect(page.locator("#messages li")).to_have_count(messages)
        await every_step_done(page)

        # A message after completion: the gateway's 409, in words.
        await page.locator("#message").fill("One more thing: also email me.")
        await page.locator("#message").press("Enter")
        await expect(page.locator("#error")).to_contain_text("Not now: the session is completed")
        await expect(page.locator("#message")).to_have_value("One more thing: also email me.")
        await shots.take(page, "conflict")
        await a_new_conversation_after_a_completed_one_starts_with_an_empty_plan(page, shots)


async def a_new_conversation_after_a_completed_one_starts_with_an_empty_plan(page, shots) -> None:
    """Issue 31's bug: the plan panel of the next conversation said "Built and saved as wf-…".

    The completed conversation is opened again with its event stream held back, so the plan
    is not drawn and the panel shows the saved workflow's id (what `showWorkflow` writes).
    """
    release = asyncio.Event()

    async def hold(route) -> None:
        await release.wait()
        with contextlib.suppress(Exception):  # the page may have closed that stream meanwhile
            await route.continue_()

    await page.route("**/events?*", hold)
    await page.reload()
    await expect(page.locator("#plan-empty")).to_have_text(re.compile(r"^Built and saved as wf-"))
    await page.get_by_role("button", name="New conversation").click()
    await expect(page.locator("#messages li")).to_have_count(0)
    await expect(page.locator("#plan-empty")).to_be_visible()
    await expect(page.locator("#plan-empty")).to_have_text(
        "The plan appears once the summary is confirmed."
    )
    await expect(page.locator("#workflow")).to_be_hidden()
    await shots.take(page, "new-after-completed")
    release.set()
    await page.unroute("**/events?*", hold)


async def test_a_late_answer_about_older_notes_does_not_paint_over_newer_ones(
    web_stack, browser, shots
):
    """Refreshes overlap; the notes drawn are the newest asked for, whatever answers last."""
    async with opened(browser, web_stack.gateway_url + "/") as page:
        session_id = await new_conversation(page)
        held: list = []
        released = asyncio.Event()

        async def hold_first(route):
            if held:
                await route.continue_()
                return
            held.append(await route.fetch())  # the notes as they are now...
            await released.wait()  # ...answered only after newer notes are drawn
            await route.fulfill(response=held[0])

        state_url = f"**/v1/sessions/{session_id}"
        await page.route(state_url, hold_first)
        await say(page, TURNS[0])
        await say(page, TURNS[1])
        await expect(page.locator("#integrations li", has_text="Slack")).to_have_count(1)
        drawn = await page.locator(".notes").inner_text()
        async with page.expect_response(lambda r: r.url.endswith(session_id)):
            released.set()
        await page.wait_for_timeout(300)  # time for a wrongly drawn late answer to show
        assert await page.locator(".notes").inner_text() == drawn
        await page.unroute(state_url)
        await shots.take(page, "newest-notes")


async def test_a_change_requested_at_confirmation(web_stack, browser, shots):
    async with opened(browser, web_stack.gateway_url + "/") as page:
        await gather_to_confirmation(page)
        await page.get_by_role("button", name="Change").click()
        assert await page.evaluate("document.activeElement.id") == "message"
        await say(page, "Actually, post the digest to Microsoft Teams instead of Slack.")
        await expect(page.locator("#removed li del")).to_have_text(["Slack"])
        assert "Microsoft Teams" in await chip_names(page, "integrations")
        await shots.take(page, "changed")
        await expect(page.locator("#phase")).to_have_text("— gathering")
        await say(page, "That's everything.")
        await expect(page.locator("#confirmation")).to_be_visible()
        await expect(page.locator("#confirmation-text")).to_contain_text("Teams")
        await page.get_by_role("button", name="Confirm").click()
        await expect(page.locator("#workflow")).to_be_visible()
        doc = await page.locator("#workflow-doc").inner_text()
        used = {n.get("specialist") for n in json.loads(doc)["nodes"]}
        assert "microsoft_teams" in used and "slack" not in used, used
        await shots.take(page, "workflow")


async def test_the_stream_resumes_after_a_reconnect_in_the_middle_of_dispatch(
    web_stack, browser, shots
):
    runner = child(web_stack, "specialist")
    line = await Cuttable(web_stack.gateway_url).start()
    async with opened(browser, line.url + "/") as page:
        session_id = await gather_to_confirmation(page)
        runner.signal_group(signal.SIGSTOP)  # steps wait: dispatch stays in the middle
        try:
            await page.get_by_role("button", name="Confirm").click()
            # The stopped runner never answers, so the dispatcher may already be retrying
            # the step by the time the page draws it: either state is "in the middle".
            in_flight = '.step[data-state="running"], .step[data-state="retrying"]'
            await expect(page.locator(in_flight)).to_have_count(1)
            await shots.take(page, "dispatching")
            await page.locator(".plan").screenshot(path=shots.folder / "plan-progress.png")
            await line.cut()
            await expect(page.locator("#error")).to_contain_text("cannot be reached")
        finally:
            runner.signal_group(signal.SIGCONT)
        # The rest of the plan runs while the page is cut off.
        await until_saved(web_stack, session_id)
        assert await page.locator("#workflow").is_hidden()
        await shots.take(page, "cut-off")
        await line.restore()
        await expect(page.locator("#workflow")).to_be_visible()
        await expect(page.locator("#connection")).to_have_text("Live")
        await expect(page.locator("#error")).to_be_hidden()
        await shots.take(page, "resumed")

        shown = await shown_event_ids(page)
        assert shown == await outbox_ids(web_stack, session_id), "an event lost or repeated"
        await every_step_done(page)
        turn_ids = await page.locator("#messages li.assistant").evaluate_all(
            "items => items.map(li => li.dataset.turnId)"
        )
        assert len(turn_ids) == len(set(turn_ids)) == len(TURNS) + 1
    await line.cut()


async def until_saved(stack: EmbeddedStack, session_id: str) -> None:
    redis = Redis.from_url(stack.redis_url, decode_responses=True)
    try:
        for _ in range(600):
            entries = await redis.xrange(session_key(session_id, "outbox"))
            if any(fields["type"] == "workflow_completed" for _, fields in entries):
                return
            await asyncio.sleep(0.1)
    finally:
        await redis.aclose()
    raise AssertionError("the workflow was not saved and announced")


async def test_keyboard_only_from_an_empty_page_to_a_saved_workflow(web_stack, browser, shots):
    async with opened(browser, web_stack.gateway_url + "/") as page:
        keys = page.keyboard
        await expect(page.locator("#new-session")).to_be_focused()
        await keys.press("Enter")
        await expect(page.locator("#message")).to_be_focused()
        for text in TURNS:
            replies = await assistant(page).count()
            await keys.type(text)
            await keys.press("Enter")
            await expect(assistant(page)).to_have_count(replies + 1)
        await shots.take(page, "confirmation")
        await keys.press("Tab")  # Send
        await keys.press("Tab")  # Confirm
        await expect(page.get_by_role("button", name="Confirm")).to_be_focused()
        await keys.press("Enter")
        await expect(page.locator("#workflow")).to_be_visible()
        for _ in range(60):  # Tab onwards until the download button has the focus
            if await page.evaluate("document.activeElement.id") == "download":
                break
            await keys.press("Tab")
        await expect(page.locator("#download")).to_be_focused()
        async with page.expect_download():
            await keys.press("Enter")
        await keys.press("Tab")
        await expect(page.get_by_role("link", name="Export to n8n")).to_be_focused()
        async with page.expect_download() as downloading:
            await keys.press("Enter")
        assert (await downloading.value).suggested_filename.endswith(".n8n.json")
        await shots.take(page, "done")


async def test_no_serious_accessibility_violations(web_stack, browser, shots):
    axe = Axe()
    async with opened(browser, web_stack.gateway_url + "/") as page:
        found = {}
        found["empty"] = await axe.run(page)
        await gather_to_confirmation(page)
        found["confirmation"] = await axe.run(page)
        await page.get_by_role("button", name="Confirm").click()
        await expect(page.locator("#workflow")).to_be_visible()
        await page.locator("#activity summary").click()
        found["workflow"] = await axe.run(page)
        await shots.take(page, "scanned")
    serious = {
        state: [
            (v["id"], v["impact"], len(v["nodes"]))
            for v in result.response["violations"]
            if v["impact"] in {"serious", "critical"}
        ]
        for state, result in found.items()
    }
    assert serious == {state: [] for state in found}, serious
    (shots.folder / "axe.json").write_text(
        json.dumps({s: r.response["violations"] for s, r in found.items()}, indent=1)
    )


async def test_the_page_is_served_with_its_own_assets_only(web_stack):

    async with httpx.AsyncClient(base_url=web_stack.gateway_url) as http:
        page = await http.get("/")
        script = await http.get("/ui/app.js")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]


KEYS = {"key-acme-" + "a" * 40: "acme", "key-globex-" + "g" * 40: "globex"}


@pytest_asyncio.fixture(scope="module")
async def keyed_gateway(web_stack):
    """A second gateway on the module's stack that needs API keys (the first is anonymous)."""
    port = free_ports(1)[0]
    env = {
        **web_stack.env,
        "PLANWIRE_HTTP_PORT": str(port),
        "PLANWIRE_API_KEYS": json.dumps(KEYS),
    }
    gateway = Child(
        "gateway-keyed",
        [sys.executable, "-m", "services.gateway.main"],
        web_stack.log_dir / "gateway-keyed.log",
        env,
    ).start()
    url = f"http://127.0.0.1:{port}"
    try:
        await healthy(url, gateway)
        yield url
    finally:
        stop_children([gateway])


async def sign_in(page, key: str) -> None:
    await expect(page.get_by_label("API key")).to_be_focused()
    await page.keyboard.type(key)
    await page.keyboard.press("Enter")
    await expect(page.locator("#app")).to_be_visible()


async def test_a_second_tenant_sees_nothing_of_the_first(browser, keyed_gateway, shots):
    acme_key, globex_key = list(KEYS)
    async with opened(browser, keyed_gateway + "/") as acme:
        await expect(acme.locator("#login")).to_be_visible()
        assert acme.url == keyed_gateway + "/"
        await acme.keyboard.type("not-a-key")
        await acme.keyboard.press("Enter")
        await expect(acme.locator("#error")).to_contain_text("not known to this gateway")
        await shots.take(acme, "login-refused")
        await acme.get_by_label("API key").fill("")
        await sign_in(acme, acme_key)
        assert acme_key not in acme.url
        cookie = next(c for c in await acme.context.cookies() if c["name"] == "planwire_auth")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert acme_key not in cookie["value"]
        acme_session = await new_conversation(acme)
        await say(acme, TURNS[0])
        await expect(acme.locator("#session-list li")).to_have_count(1)
        await shots.take(acme, "acme")

        async with opened(browser, keyed_gateway + "/") as globex:
            await sign_in(globex, globex_key)
            await expect(globex.locator("#sessions-empty")).to_be_visible()
            await expect(globex.locator("#session-list li")).to_have_count(0)
            await globex.goto(f"{keyed_gateway}/#s={acme_session}")
            await expect(globex.locator("#error")).to_contain_text("Not found")
            await expect(globex.locator("#messages li")).to_have_count(0)
            stream = await globex.evaluate(
                "id => fetch(`/v1/sessions/${id}/events`).then(r => r.status)", acme_session
            )
            assert stream == 404
            await shots.take(globex, "globex")

            await globex.get_by_role("button", name="Sign out").click()
            await expect(globex.locator("#login")).to_be_visible()
            await globex.reload()
            await expect(globex.locator("#login")).to_be_visible()
        # The first tenant's page is untouched by the second signing in and out.
        await acme.reload()
        await expect(acme.locator(f'#session-list a[href="#s={acme_session}"]')).to_be_visible()


async def healthy(url: str, child_process: Child) -> None:
    async with httpx.AsyncClient(base_url=url) as http:
        for _ in range(1200):
            child_process.check()
            try:
                if (await http.get("/health")).status_code == 204:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"the keyed gateway did not start:\n{child_process.tail()}")


async def test_planwire_demo_open_shows_the_played_conversation_in_the_page(
    browser, shots, tmp_path
):
    opened_urls = tmp_path / "opened"
    recorder = tmp_path / "browser.py"
    recorder.write_text(f"import sys\nopen({str(opened_urls)!r}, 'a').write(sys.argv[1] + '\\n')\n")
    demo = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "planwire", "demo", "--open", "--model", "heuristic"),
        env={**os.environ, "BROWSER": f"{sys.executable} {recorder} %s"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        url = await asyncio.wait_for(announced_page(demo), 300)
        for _ in range(100):  # the browser command runs in the background
            if opened_urls.exists() and opened_urls.read_text().split() == [url]:
                break
            await asyncio.sleep(0.1)
        assert opened_urls.read_text().split() == [url]
        async with opened(browser, url) as page:
            await expect(page.locator("#workflow")).to_be_visible()
            await expect(page.locator("#phase")).to_have_text("— completed")
            await every_step_done(page)
            await shots.take(page, "demo")
    finally:
        demo.send_signal(signal.SIGTERM)  # the demo stops its stack, then exits
        try:
            status = await asyncio.wait_for(demo.wait(), 60)
        except TimeoutError:
            demo.kill()
            raise
    assert status == 0


async def announced_page(demo) -> str:
    """Read the demo's output until it prints the page's address."""
    seen = []
    while line := (await demo.stdout.readline()).decode():
        seen.append(line)
        if "the conversation in a browser:" in line:
            return line.rsplit(" ", 1)[1].strip()
    raise AssertionError("the demo ended without opening the page:\n" + "".join(seen))
