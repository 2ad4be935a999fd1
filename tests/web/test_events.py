"""Events (issue 32, docs/events.md) in a real browser against a real arena
(conftest.py): a competition created with the CLI, an entrant who signs up on
the join page with the invite link, the event page with its countdown, the
organiser's roster behind the organiser token, the deadline that freezes the
entries and starts the final, and the results page. Every page is checked at
a 390 px phone width too, and nothing here puts a token into a URL.

    TAROCK_BUILD_DIR=build python3 -m pytest -q tests/web/test_events.py
"""

import datetime
import json
import os
import urllib.error
import urllib.request

from conftest import wait_until, csp_violations

DEADLINE_S = 25


def utc_in(seconds):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%d %H:%M:%S")


def post_json(arena, path, body, headers=None):
    req = urllib.request.Request(arena.url(path), data=json.dumps(body).encode(), method="POST",
                                 headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def get_with(arena, path, token):
    req = urllib.request.Request(arena.url(path), headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def signed(x):
    """A number as common.js's signed(x, 2) writes it: a sign, none on a zero."""
    s = "%.2f" % float(x)
    if float(s) == 0:
        return s.replace("-", "")
    return "+" + s if float(x) > 0 else s.replace("-", "\u2212")


# Screenshots only when asked, as in test_web.py: TAROCK_SCREENSHOTS=DIR.
SCREENSHOTS = os.environ.get("TAROCK_SCREENSHOTS", "")


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


# Tables that overflow their box sideways (each as its first header's text):
# a note under one names the columns it hides, not those cut off at its right
# edge (test_site.py's check).
OVERFLOWING = """
  return Array.from(document.querySelectorAll('.table-wrap')).filter((w) => w.scrollWidth > w.clientWidth + 1)
    .map((w) => (w.querySelector('th') || w).textContent.slice(0, 40));"""


def fits_phone(browser):
    return browser.execute_script("return document.documentElement.scrollWidth") <= 390


def test_a_competition_from_sign_up_to_results(arena, browser):
    from selenium.webdriver.common.by import By
    out = arena.cli("events", "create", "cup-3p", "--name", "Winter cup", "--kind", "competition",
                    "--variants", "slovenian-3p", "--deadline", utc_in(DEADLINE_S), "--hands", "3",
                    "--final_deals", "6", "--description", "A cup for the web test.")
    token = next(l.split()[1] for l in out.splitlines() if l.startswith("organiser_token "))
    code = next(l.split()[1] for l in out.splitlines() if l.startswith("invite_code "))
    for bot in ("heuristic", "random-a", "random-b"):
        arena.cli("events", "enter", "cup-3p", "--bot", bot, "--organiser_token", token,
                  "--token", arena.tokens[bot])

    # The event page: overview, countdown, ladder, the organiser's roster.
    browser.set_window_size(1280, 900)
    browser.get(arena.url("/events/cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.ID, "countdown") and
               "Deadline" in d.find_element(By.ID, "countdown").text, what="the countdown")
    first = browser.find_element(By.ID, "countdown").text
    wait_until(browser, lambda d: d.find_element(By.ID, "countdown").text != first, what="the countdown ticking")
    assert "Winter cup" in browser.find_element(By.TAG_NAME, "h1").text
    assert "A cup for the web test." in browser.page_source
    # Three bots cannot fill a duplicate set (6 in slovenian-3p): the ladder
    # plays matches rated on places, and the page says so (issue 33).
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".ladder-panel .ladder-note"), what="the ladder note")
    note = browser.find_element(By.CSS_SELECTOR, ".ladder-panel .ladder-note").text
    assert "rated on places until the field can fill a duplicate set: 6 bots needed, 3 play slovenian-3p" in note, note
    assert browser.find_element(By.CSS_SELECTOR, ".ladder-panel").get_attribute("data-rating-model") == "place"
    # Its standings have a legend: the model and what "provisional" means (issue 48).
    legend = browser.find_element(By.CSS_SELECTOR, ".ladder-panel .ladder-legend").text
    assert "Place ratings" in legend and "provisional = fewer than 10 rated matches" in legend, legend
    screenshot(browser, "event-open.png")

    # Sign-up on the join page from the invite link.
    browser.get(arena.url("/join/" + code))
    wait_until(browser, lambda d: d.find_elements(By.ID, "join-name"), what="the join form")
    assert browser.find_element(By.ID, "join-code").get_attribute("value") == code
    browser.find_element(By.ID, "join-name").send_keys("Ann")
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "entrant-token"), what="the entrant token")
    entrant_token = browser.find_element(By.ID, "entrant-token").text.strip()
    assert len(entrant_token) == 32 and entrant_token not in browser.current_url
    # The greeting names the event as its page does, not by its slug, and the
    # arena the bot plays on (issue 48).
    welcome = browser.find_element(By.ID, "welcome").text
    assert "You are in Winter cup." in welcome, welcome
    assert browser.find_element(By.ID, "arena-address").text == "127.0.0.1:%d" % arena.grpc_port
    # The lines name the arena and keep the token out of the command line
    # (issue 47); the page itself registers a bot with the entrant token.
    line = browser.find_element(By.ID, "connect-line").text
    assert "export TAROCK_ENTRANT_TOKEN=" + entrant_token in line and "--entrant_token" not in line, line
    assert "python3 -m tarock_bot register cup-3p-ann " in line and "--arena " in line, line
    screenshot(browser, "event-joined.png")
    browser.find_element(By.CSS_SELECTOR, "#register-bot button[type=submit]").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "bot-token"), what="the bot token")
    assert len(browser.find_element(By.ID, "bot-token").text.strip()) == 32
    assert "python3 -m tarock_bot connect" in browser.find_element(By.ID, "bot-result").text
    # The same name again, and a wrong code: one clear line each.
    browser.get(arena.url("/join/" + code))
    wait_until(browser, lambda d: d.find_elements(By.ID, "join-name"), what="the join form")
    browser.find_element(By.ID, "join-name").send_keys("ANN")
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_until(browser, lambda d: "has joined" in d.find_element(By.ID, "join-result").text, what="the refusal")
    status, body = post_json(arena, "/api/events/join", {"code": "0" * 16, "name": "Bob"})
    assert status == 404 and "invite code" in body["error"]

    # The organiser's roster on the page: the token typed in, never in the URL.
    browser.get(arena.url("/events/cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.ID, "organiser-token"), what="the organiser form")
    browser.find_element(By.ID, "organiser-token").send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "#organiser button[type=submit]").click()
    wait_until(browser, lambda d: d.find_elements(By.ID, "invite-link"), what="the roster")
    assert browser.find_element(By.ID, "invite-link").text.endswith("/join/" + code)
    assert "Ann" in browser.find_element(By.ID, "organiser").text
    assert token not in browser.current_url
    screenshot(browser, "event-roster.png")
    # Another token, or none: no roster.
    status, _ = get_with(arena, "/api/events/cup-3p/roster", "0" * 32)
    assert status == 403
    status, _ = get_with(arena, "/api/events/cup-3p/roster", "")
    assert status == 403

    # Phone width: the list, the event page and the join page fit.
    browser.set_window_size(390, 844)
    for path in ("/events", "/events/cup-3p", "/join"):
        browser.get(arena.url(path))
        wait_until(browser, lambda d: d.find_elements(By.TAG_NAME, "h1"), what=path)
        assert fits_phone(browser), path
        # No table scrolls sideways inside its box without saying what it hides (issue 48).
        assert browser.execute_script(OVERFLOWING) == [], path
        screenshot(browser, "phone" + path.replace("/", "-") + ".png")
    browser.set_window_size(1280, 900)

    # The deadline passes: entries freeze, the final runs, the results stay.
    arena.wait_for(lambda: arena.api("/api/events/cup-3p")["status"] == "finished",
                   timeout=DEADLINE_S + 120, what="the final")
    event = arena.api("/api/events/cup-3p")
    assert event["frozen_at"] and int(event["final_tournament_id"]) > 0
    assert [r["bot"] for r in event["results"]] and len(event["results"]) == 3
    browser.get(arena.url("/events/cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.ID, "results"), what="the results")
    results = browser.find_element(By.ID, "results").text
    assert "Final standings" in results and "heuristic" in results and "unfrozen" in results
    screenshot(browser, "event-results.png")
    browser.set_window_size(390, 844)
    for path in ("/events", "/events/cup-3p"):
        browser.get(arena.url(path))
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".table-wrap tbody tr"), what=path)
        assert browser.execute_script(OVERFLOWING) == [], path
    browser.set_window_size(1280, 900)
    browser.get(arena.url("/events/cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.ID, "results"), what="the results")
    # Three bots at every table of a 3-seat final: no pair ever played apart,
    # so there is no pairs table (EventsTest checks it with four).
    assert not event.get("pairs") and not browser.find_elements(By.ID, "pairs")
    status, csv = get_with(arena, "/api/events/cup-3p/export?format=csv", token)
    # One table (docs/events.md): Ann's bot never connected, so it sat the final out.
    assert status == 200 and csv.startswith(b"entrant,bot,health,final_status,"), csv
    assert b"\nAnn,cup-3p-ann," in csv and b",left out: " in csv and b",final," in csv, csv
    # A late sign-up is refused with one line.
    status, body = post_json(arena, "/api/events/join", {"code": code, "name": "Late"})
    assert status == 409, (status, body)
    assert "closed" in body["error"]
    assert not csp_violations(browser)
    # The list shows it among the past events.
    listed = arena.api("/api/events")["events"]
    assert any(e["config"]["slug"] == "cup-3p" and e["status"] == "finished" for e in listed)

    # Every list page filters by event: the bots, matches, tournaments and
    # ladders of the cup, and of the open ladders, at desktop and phone width.
    field = {"heuristic", "random-a", "random-b", "cup-3p-ann"}
    all_bots = {b["name"] for b in arena.api("/api/bots")["bots"]}
    assert field < all_bots, all_bots  # the fixture has bots outside the cup
    browser.get(arena.url("/bots?event=cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "select[name=event]") and
               d.find_elements(By.CSS_SELECTOR, "table tbody tr"), what="the bots of the cup")
    shown = {a.text for a in browser.find_elements(By.CSS_SELECTOR, "table tbody tr td:first-child a")}
    assert shown == field, shown
    assert browser.find_element(By.CSS_SELECTOR, "select[name=event]").get_attribute("value") == "cup-3p"
    screenshot(browser, "bots-of-event.png")
    browser.get(arena.url("/bots?event=open"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table tbody tr"), what="the open bots")
    shown = {a.text for a in browser.find_elements(By.CSS_SELECTOR, "table tbody tr td:first-child a")}
    # The house bots are registered in the open event; an entrant's bot is its event's.
    assert shown == all_bots - {"cup-3p-ann"}, shown
    cup_matches = arena.api("/api/matches?event=cup-3p&limit=1")["total"]
    browser.get(arena.url("/matches?event=cup-3p"))
    wait_until(browser, lambda d: "of %s" % cup_matches in d.find_element(By.ID, "page-info").text,
               what="the cup's matches")
    assert browser.find_element(By.CSS_SELECTOR, "select[name=event]").get_attribute("value") == "cup-3p"
    browser.get(arena.url("/tournaments?event=cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table tbody tr"), what="the cup's final")
    rows = browser.find_elements(By.CSS_SELECTOR, "table tbody tr")
    assert len(rows) == 1 and "/tournaments/%s" % event["final_tournament_id"] in rows[0].get_attribute("innerHTML")
    browser.get(arena.url("/ladders?event=cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "table tbody tr"), what="the cup's ladder")
    assert len(browser.find_elements(By.CSS_SELECTOR, "table tbody tr")) == 1
    # The leaderboard of the cup: its own ratings, as the API gives them.
    board = {e["bot"] for e in arena.api("/api/leaderboard?variant=slovenian-3p&event=cup-3p").get("entries", [])}
    assert board <= field, board
    browser.get(arena.url("/leaderboard/slovenian-3p?event=cup-3p"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board table tbody tr"), what="the cup's leaderboard")
    assert browser.find_element(By.CSS_SELECTOR, "select[name=event]").get_attribute("value") == "cup-3p"
    shown = {a.text for a in browser.find_elements(By.CSS_SELECTOR, "#board table tbody tr td a")}
    assert shown == board, (shown, board)
    browser.set_window_size(390, 844)
    for path in ("/bots?event=cup-3p", "/matches?event=cup-3p", "/leaderboard/slovenian-3p?event=cup-3p"):
        browser.get(arena.url(path))
        wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "select[name=event]"), what=path)
        assert fits_phone(browser), path
    screenshot(browser, "phone-matches-of-event.png")
    browser.set_window_size(1280, 900)


# Issue 33: an event whose field fills a duplicate set (six bots in
# slovenian-3p) plays duplicate sets rated on margins; the event page's ladder
# shows points a deal with the 95% interval, "vs next" and the deals, as the
# JSON API gives them, at desktop and phone width, and the export has them.
SIX = [("heuristic-%d" % i, "tarock-bot-heuristic", [], "arena") for i in (1, 2, 3)] + \
      [("random-%d" % i, "tarock-bot-random", ["--seed", str(i)], "arena") for i in (1, 2, 3)]


def test_an_event_ladder_of_six_is_rated_in_points_a_deal(start_stack, browser):
    from selenium.webdriver.common.by import By
    stack = start_stack(bots=SIX, max_parallel=2, variants=["slovenian-3p"])
    out = stack.cli("events", "create", "class-6", "--name", "Class of six", "--kind", "class",
                    "--variants", "slovenian-3p", "--hands", "3")
    token = next(l.split()[1] for l in out.splitlines() if l.startswith("organiser_token "))
    for bot, _, _, _ in SIX:
        stack.cli("events", "enter", "class-6", "--bot", bot, "--organiser_token", token,
                  "--token", stack.tokens[bot])
    lb = stack.wait_for(
        lambda: (b := stack.api("/api/leaderboard?variant=slovenian-3p&event=class-6")) and
        b.get("rating_model") == "margin" and len(b.get("entries", [])) == 6 and
        all(e["margin"].get("sets", 0) >= 2 for e in b["entries"]) and b,
        timeout=120, what="two sets booked for every bot")
    event = stack.api("/api/events/class-6")
    assert event["ladders"][0]["rating_model"] == "margin", event["ladders"]
    for width, name in ((1280, "desktop"), (390, "phone")):
        browser.set_window_size(width, 900)
        browser.get(stack.url("/events/class-6"))
        wait_until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".ladder-panel tbody tr")) == 6,
                   what="the margin ladder at " + name)
        panel = browser.find_element(By.CSS_SELECTOR, ".ladder-panel")
        assert panel.get_attribute("data-rating-model") == "margin"
        text = panel.text
        assert "points a deal with a 95% interval" in text, text
        heads = " ".join(th.get_attribute("textContent") for th in panel.find_elements(By.TAG_NAME, "th"))
        assert "points a deal" in heads and "vs next" in heads and "Deals" in heads, heads
        for tr in panel.find_elements(By.CSS_SELECTOR, "tbody tr"):
            cells = tr.get_attribute("textContent")
            assert "[" in cells and "]" in cells, cells  # the interval
        legend = panel.find_element(By.CSS_SELECTOR, ".ladder-legend").get_attribute("textContent")
        assert "\u00b130" in legend and "provisional = fewer than 10 rated sets" in legend, legend
        shown = [a.text for a in panel.find_elements(By.CSS_SELECTOR, "tbody tr td a")]
        assert set(shown) == {e["bot"] for e in lb["entries"]}, shown
        if name == "phone":
            assert fits_phone(browser)
        screenshot(browser, "event-margin-" + name + ".png")
    browser.set_window_size(1280, 900)

    # "vs next" is the head-to-head figure the ladder's page shows (the
    # difference a deal and its 95% interval, LeaderboardEntry.vs_next), not
    # only whether the two are apart (issue 48). The class closed (its ladder
    # stopped), both pages show the same standings.
    stack.cli("events", "close", "class-6", "--organiser_token", token)
    stack.wait_for(lambda: not any(l["running"] for l in stack.api("/api/ladders")["ladders"]),
                   timeout=60, what="the class's ladder to stop")
    # (Its first ladder played matches rated on places until all six had joined.)
    ladder = next(l for l in stack.api("/api/ladders")["ladders"]
                  if l["config"].get("event") == "class-6" and l["config"].get("rating_model") == "margin")

    def vs_next_cells(path, rows):
        browser.get(stack.url(path))
        wait_until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, rows)) == 6, what=path)
        # The "vs next" column, wherever each page puts it.
        col = [th.get_attribute("textContent") for th in
               browser.find_elements(By.CSS_SELECTOR, rows.replace("tbody tr", "thead th"))].index("vs next")
        return {tr.find_element(By.CSS_SELECTOR, "td a").text:
                tr.find_elements(By.TAG_NAME, "td")[col].get_attribute("textContent")
                for tr in browser.find_elements(By.CSS_SELECTOR, rows)}
    # Tables in flight when it stopped may still book a set: the two pages are
    # compared once nothing moved while both were read.
    for _ in range(20):
        lb = stack.api("/api/leaderboard?variant=slovenian-3p&event=class-6")
        on_event = vs_next_cells("/events/class-6", ".ladder-panel tbody tr")
        on_ladder = vs_next_cells("/ladders/%s" % ladder["id"], "#ladder-standings tbody tr")
        if stack.api("/api/leaderboard?variant=slovenian-3p&event=class-6") == lb:
            break
    else:
        raise AssertionError("the class's standings kept moving after it closed")
    assert on_event == on_ladder, (on_event, on_ladder)
    for e in lb["entries"]:
        h = e.get("vs_next")
        if h:  # every bot but the last: the difference and its interval, as common.js writes them
            assert "%s [%s, %s]" % (signed(h["diff"]), signed(h["low"]), signed(h["high"])) in on_event[e["bot"]], \
                (e, on_event[e["bot"]])
    assert sum(1 for e in lb["entries"] if e.get("vs_next")) == 5, lb["entries"]
    status, csv = get_with(stack, "/api/events/class-6/export?format=csv", token)
    # The ladder columns (docs/events.md "Export for grading"): rated on margins.
    assert status == 200 and b",margin," in csv, csv
    assert not csp_violations(browser)
