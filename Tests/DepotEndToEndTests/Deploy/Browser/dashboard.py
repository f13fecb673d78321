"""Drives Depot's dashboard in headless Chromium (Debian's `chromium`, through Playwright).

    python3 dashboard.py URL ADMIN_TOKEN READ_TOKEN SCREENSHOT

The server holds three releases on `stable`, release 3 changing `a.txt`. Checks, in order: a
request without a token is refused; the read-only tables render without JavaScript; the admin
sees stable at release 3, the diff of 2 → 3 lists a.txt as changed and its file page its three
versions; the rollback button
re-points stable to release 2; a rollout of release 3 started from the form is halted by its
gate when installs report failures (state, reason and chart text shown) and rolled back with its
button; a read token sees no button; no page logs a console error.
Prints each failure and exits 1 if any; saves a screenshot of the admin's page.
"""
import hashlib
import json
import sys
import time
from playwright.sync_api import sync_playwright

url, admin_token, read_token, screenshot, manager_token = sys.argv[1:6]
failures = []
console_errors = []


def check(condition, message):
    if not condition:
        failures.append(message)


def open_page(browser, token, javascript=True):
    context = browser.new_context(
        http_credentials={"username": "operator", "password": token} if token else None,
        java_script_enabled=javascript,
        viewport={"width": 1100, "height": 900},
    )
    page = context.new_page()
    page.on("console", lambda message: message.type == "error" and console_errors.append(message.text))
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    return page


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])

    anonymous = browser.new_context().request.get(f"{url}/dashboard/")
    check(anonymous.status == 401 and anonymous.headers.get("www-authenticate", "").startswith("Basic"),
          "a request without a token is refused with 401 and a Basic challenge")

    plain = open_page(browser, read_token, javascript=False)
    plain.goto(f"{url}/dashboard/")
    check("#3" in plain.locator("section[aria-labelledby=channels] tbody tr", has_text="stable").inner_text(),
          "without JavaScript, the channels table shows stable at release 3")
    check(plain.locator("section[aria-labelledby=releases] tbody tr").count() == 3, "without JavaScript, three releases are listed")

    admin = open_page(browser, admin_token)
    admin.goto(f"{url}/dashboard/")
    stable = admin.locator("section[aria-labelledby=channels] tbody tr", has_text="stable")
    check("#3" in stable.inner_text(), f"the admin's page shows stable at release 3: {stable.inner_text()!r}")
    check(admin.get_by_role("img").count() == 1 and "Requests a minute" in admin.locator("figcaption").inner_text(),
          "the traffic chart has a text alternative")

    admin.goto(f"{url}/dashboard/diff?from=2&to=3")
    changed = admin.locator("#diff-table tbody tr", has_text="a.txt")
    check(changed.count() == 1 and "changed" in changed.inner_text(), "the diff of 2 → 3 lists a.txt as changed")

    admin.goto(f"{url}/dashboard/file?path=a.txt")
    columns = admin.locator("section[aria-labelledby=file] thead th").all_inner_texts()
    check("Gzip" in columns and "Brotli" in columns and "Zstd" in columns, f"the file page shows gzip, brotli and zstd sizes: {columns!r}")
    versions = admin.locator("section[aria-labelledby=file] tbody tr")
    check(versions.count() == 3 and versions.first.inner_text().startswith("v3"), "the file page lists a.txt's three versions, newest first")

    admin.goto(f"{url}/dashboard/")
    button = admin.locator("button[data-action=rollback][data-channel=stable]")
    button.click()
    check("Confirm" in button.inner_text(), "the first click asks for confirmation")
    asked = admin.locator("tr[data-channel-row=stable] + tr[data-result]")
    check(asked.count() == 1 and "Roll back stable from #3 to #2?" in asked.inner_text(),
          f"the confirm names the channel and both releases, beside the row: {asked.all_inner_texts()!r}")
    with admin.expect_response(lambda response: response.url.endswith("/v1/channels/stable/rollback")) as answer:
        button.click()
    if answer.value.status != 200:
        sys.exit(f"FAILED: the rollback button's call: {answer.value.status} {answer.value.text()}")
    admin.wait_for_load_state()
    admin.wait_for_selector("section[aria-labelledby=channels] tbody tr >> text=#2")
    stable = admin.locator("tr[data-channel-row=stable]")
    check("#2" in stable.inner_text(), f"after rollback the page shows stable at release 2: {stable.inner_text()!r}")
    kept = admin.locator("tr[data-channel-row=stable] + tr[data-result]")
    check(kept.count() == 1 and "stable now serves release #2." in kept.inner_text(),
          f"the result is kept across the reload, beside the row: {kept.all_inner_texts()!r}")
    live = admin.locator("section[aria-labelledby=releases] tbody tr", has_text="#2").locator("[data-live-on]")
    check(live.inner_text() == "stable", f"the releases table says where release 2 is live: {live.inner_text()!r}")
    admin.goto(f"{url}/dashboard/file?path=a.txt")
    check(admin.locator("section[aria-labelledby=file] tbody tr", has_text="v2").locator("[data-live-on]").inner_text() == "stable",
          "the file page says where each version is live")

    # A rollout of release 3 to stable, started from the form, halted by its gate when installs
    # report failures, then rolled back with its button.
    admin.goto(f"{url}/dashboard/")
    form = admin.locator("form.rollout-start[data-channel=stable]")
    form.locator("select[name=release]").select_option("3")
    form.locator("input[name=steps]").fill("10,50,100")
    form.locator("input[name=minReports]").fill("5")
    form.locator("input[name=autoRollback]").uncheck()
    # A refusal lands beside the form, in view.
    form.locator("input[name=steps]").fill("10,5,100")
    start = form.locator("button[type=submit]")
    # Start asks first, as every button does.
    start.click()
    asked = admin.locator("form.rollout-start[data-channel=stable] + p[data-result]")
    check("Confirm" in start.inner_text() and "Start rolling release #3 out to stable (now on #2), 10% of its installs first?" in asked.inner_text(),
          f"Start asks to confirm, naming release, channel and first step: {asked.all_inner_texts()!r}")
    with admin.expect_response(lambda response: response.url.endswith("/v1/channels/stable/rollout")) as answer:
        start.click()
    check(answer.value.status == 400, f"steps that fall are refused ({answer.value.status})")
    error = admin.locator("form.rollout-start[data-channel=stable] + p[data-result]")
    error.wait_for()
    box = error.bounding_box()
    check("Starting the rollout failed" in error.inner_text() and box and 0 <= box["y"] < admin.viewport_size["height"],
          f"the form's error is shown beside it, in view: {error.inner_text()!r} at {box}")
    form.locator("input[name=steps]").fill("10,50,100")
    form.locator("input[name=every]").fill("15m")
    check(start.inner_text() == "Start", f"after a refusal the button asks again: {start.inner_text()!r}")
    start.click()
    with admin.expect_response(lambda response: response.url.endswith("/v1/channels/stable/rollout")) as answer:
        start.click()
    if answer.value.status != 201:
        sys.exit(f"FAILED: starting the rollout: {answer.value.status} {answer.value.text()}")
    admin.wait_for_selector("article[data-rollout=stable] >> text=running at 10%")
    rollout = admin.locator("article[data-rollout=stable]")
    stable_row = admin.locator("section[aria-labelledby=channels] tbody tr", has_text="stable")
    check("rolling out #3 to 10% (running)" in stable_row.inner_text(),
          f"the channel's row says a rollout is under way: {stable_row.inner_text()!r}")
    check("10%" in rollout.locator("ol.steps li.current").inner_text(), "the current step is 10%")
    check(rollout.get_by_role("img").count() == 1, "the rollout's chart is an image with a text alternative")
    check("each step lasts at least 15 min" in rollout.inner_text(), "the form's duration (15m) is the step's length")
    check("GMT" in rollout.locator("[data-rollout-field=step-started]").inner_text(), "the card shows when the step began")
    next_step = rollout.locator("[data-rollout-field=next-step]").inner_text()
    check(next_step.startswith("not before") and "only once the gate passes" in next_step,
          f"without reports the card promises no step: {next_step!r}")
    check(rollout.locator("[data-rollout-field=reports]").inner_text() == "0 of 5 needed", "the card shows the reports received and needed")
    check(rollout.locator("[data-rollout-field=networks]").inner_text() == "0 of 1 needed (reports.gateNetworks)",
          f"the card shows the networks received and needed: {rollout.locator('[data-rollout-field=networks]').inner_text()!r}")
    gate_now = rollout.locator("[data-rollout-field=gate]").inner_text()
    check(gate_now.startswith("waiting: the step lasts until") and "so far 0 of 5 reports, from 0 of 1 network (reports.gateNetworks)" in gate_now,
          f"the card says what the gate waits for: {gate_now!r}")
    check(admin.locator("button[data-action=promote][data-channel=stable]").count() == 0
          and "Promote once the rollout ends" in stable_row.inner_text(), "no Promote is offered during a rollout")
    rolling = admin.locator("section[aria-labelledby=releases] tbody tr", has_text="#3").locator("[data-live-on]")
    check(rolling.inner_text() == "stable (rollout, 10%)", f"the releases table says release 3 is rolling out: {rolling.inner_text()!r}")

    # At a phone's width, every action stays on the screen.
    phone = browser.new_context(http_credentials={"username": "operator", "password": admin_token},
                                viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{url}/dashboard/")
    for control in phone.locator("td.actions button, td.actions select, .rollout .actions button").all():
        box = control.bounding_box()
        check(box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390,
              f"at 390 px, {control.inner_text()!r} is on the screen: {box}")
    # The releases table wraps, a card a release: nothing of it is cut off at the right.
    for cell in phone.locator("#releases-table tbody th, #releases-table tbody td").all():
        box = cell.bounding_box()
        check(box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390,
              f"at 390 px, the releases table's cell {cell.inner_text()!r} is on the screen: {box}")
    width = phone.evaluate("document.documentElement.scrollWidth")
    check(width <= 390, f"at 390 px, the page does not scroll sideways: {width} px wide")
    three = phone.locator("#releases-table tbody tr", has_text="#3")
    check(three.locator("[data-critical]").inner_text() == "no" and three.locator("[data-minimum-version]").inner_text() == "any",
          "the releases table says whether a release is critical and its minimum app version")
    phone.context.close()

    status = admin.request.get(f"{url}/v1/channels/stable/rollout", headers={"Authorization": f"Bearer {admin_token}"}).json()
    reports = [{"release": status["release"], "install": hashlib.sha256(f"install {n}".encode()).hexdigest(),
                "kind": "failed" if n < 4 else "applied", **({"reason": "database is locked"} if n < 4 else {})} for n in range(10)]
    sent = admin.request.post(f"{url}/v1/reports", data=json.dumps({"reports": reports}), headers={"Content-Type": "application/json"})
    check(sent.status == 202, f"the reports are taken ({sent.status})")
    for _ in range(100):
        admin.reload()
        if "halted" in rollout.locator("[data-rollout-state]").inner_text():
            break
        time.sleep(0.1)
    check("halted" in rollout.locator("[data-rollout-state]").inner_text(), f"the gate halts the rollout: {rollout.inner_text()!r}")
    check("the gate failed: 4 of 10 reports failed" in rollout.locator("[data-rollout-reason]").inner_text(),
          f"the gate's reason is shown: {rollout.locator('[data-rollout-reason]').inner_text()!r}")
    caption = rollout.locator("figcaption").inner_text()
    check("4 failed" in caption and "over the whole rollout" in caption, f"the chart's text says what failed, over the whole rollout: {caption!r}")
    check("failed this step" in rollout.locator("[data-rollout-field=step-failure-rate]").inner_text(),
          "the step's failure rate is labelled as the step's")
    check("database is locked (4)" in rollout.locator("[data-rollout-field=reasons]").inner_text(),
          "the card lists the top failure reasons")
    check(rollout.locator("[data-rollout-field=reports]").inner_text() == "10 of 5 needed", "the card counts the reports")
    admin.screenshot(path=screenshot, full_page=True)
    back = rollout.locator("button[data-rollout-action=rollback]")
    back.click()
    asked = admin.locator("article[data-rollout=stable] + p[data-result]")
    check("Roll back the rollout of release #3 on stable: every install back on release #2?" in asked.inner_text(),
          f"the rollout's confirm names its target: {asked.all_inner_texts()!r}")
    with admin.expect_response(lambda response: response.url.endswith("/v1/channels/stable/rollout/rollback")) as answer:
        back.click()
    check(answer.value.status == 200, f"the rollout's rollback button works ({answer.value.status})")
    admin.wait_for_load_state()
    admin.wait_for_selector("[data-rollout=stable] >> text=rolled-back")
    check(admin.locator("button[data-rollout-action]").count() == 0, "an ended rollout has no buttons")
    ended = admin.locator("details[data-rollout=stable]")
    check(ended.count() == 1 and ended.get_attribute("open") is None and not ended.locator("ol.steps").is_visible(),
          "an ended rollout is folded to a line")

    # The audit trail, on the dashboard, filtered by channel and by token.
    admin.goto(f"{url}/dashboard/audit?channel=stable")
    actions = admin.locator("#audit-table tbody th").all_inner_texts()
    for action in ["rollback", "rollout-start", "gate-halt", "rollout-rollback"]:
        check(action in actions, f"the audit page lists {action}: {actions!r}")
    admin.goto(f"{url}/dashboard/audit?token=manager")
    check("No record matches." in admin.locator("section[aria-labelledby=audit]").inner_text(), "the audit page filters by token")

    reader = open_page(browser, read_token)
    reader.goto(f"{url}/dashboard/")
    check(reader.locator("section[aria-labelledby=channels] tbody tr").count() == 1, "the reader sees the channels table")
    check(reader.locator("button[data-action]").count() == 0, "a read token sees no rollback or promote button")
    header = reader.locator("header").inner_text()
    check("read only" in header and "sign in with a token" not in header, f"a read token's header says it is signed in, read only: {header!r}")
    forbidden = reader.request.post(f"{url}/v1/channels/stable/rollback", headers={"X-Requested-With": "depot-dashboard"})
    check(forbidden.status in (401, 403), f"a read token cannot roll back through the API ({forbidden.status})")

    # A token with promote=stable and read: stable's rollback and promote buttons, and no rollout
    # control (its scopes have no rollouts), nor the form that starts one.
    manager = open_page(browser, manager_token)
    manager.goto(f"{url}/dashboard/")
    check("Signed in as manager" in manager.locator("header").inner_text(), "the header names the token signed in")
    check(manager.locator("button[data-action=rollback][data-channel=stable]").count() == 1,
          "a token with promote=stable gets stable's rollback button")
    check(manager.locator("button[data-rollout-action]").count() == 0 and manager.locator("form.rollout-start").count() == 0,
          "a token without the rollouts scope gets no rollout button nor start form")

    browser.close()

# The one error the script provokes (the refused start form's 400) is the only one allowed.
console_errors = [error for error in console_errors if "status of 400" not in error][:]
check(not console_errors, f"no console errors: {console_errors}")
for failure in failures:
    print(f"FAILED: {failure}")
sys.exit(1 if failures else 0)
