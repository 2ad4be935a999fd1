"""Play against bots, in a real browser against a real arena (conftest.py: a
tarock-referee, bot processes and tarock-arena on loopback; headless Chromium).

A person picks a variant and opponents on /play, plays one seat of a real
match on the referee by clicking the legal actions, reloads the page mid-hand
(the seat resumes), and plays the hand to its end, when the scores show. The
HTTP API of the play sessions is checked beside it: a whole match played
through it is stored as an unrated "play" match, and bad requests are refused.

    TAROCK_BUILD_DIR=build python3 -m pytest -q tests/web/test_play.py
"""

import json
import os
import time
import urllib.error
import urllib.request

import pytest

from conftest import ArenaStack, wait_until

# Screenshots only when asked, as in test_web.py: TAROCK_SCREENSHOTS=docs/screenshots.
SCREENSHOTS = os.environ.get("TAROCK_SCREENSHOTS", "")


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


def play_cookie(arena):
    """A new play cookie (issue 29: starting a play match needs one; the page
    and /api/play/variants hand it out)."""
    with urllib.request.urlopen(arena.url("/api/play/variants"), timeout=10) as r:
        return r.headers["Set-Cookie"].split(";")[0]


def post(arena, path, body, timeout=10, cookie=None):
    """(status, parsed body) of POST path with a JSON body, sent with a fresh
    play cookie unless `cookie` is given ("" for none)."""
    headers = {"Content-Type": "application/json"}
    cookie = play_cookie(arena) if cookie is None else cookie
    if cookie:
        headers["Cookie"] = cookie
    req = urllib.request.Request(arena.url(path), data=json.dumps(body).encode(),
                                 headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def view_of(arena, session):
    return arena.api("/api/play/" + session)


def turn_request(driver):
    """The request id the page offers actions for ('' when it is not our turn).
    Read in the page (the page re-renders; element handles go stale)."""
    return driver.execute_script(
        "const t = document.getElementById('turn'); return t ? t.dataset.request || '' : '';")


def hands_scored(driver):
    return driver.execute_script(
        "return document.querySelectorAll('#hand-results tbody tr:not(.total):not(.settlement):not(.label-row)').length;")


def offered_actions(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#turn .action, #hand .action'))"
        ".map((e) => e.dataset.action);")


def hand_cards(driver):
    return sorted(driver.execute_script(
        "return Array.from(document.querySelectorAll('#hand .card')).map((e) => e.dataset.card);"))


def click_one_action(driver, request_id):
    """Clicks the first legal action offered (a button or a highlighted card;
    pass when it may, for short auctions) and waits until the page has moved
    past that request. Returns the action."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    for _ in range(5):
        actions = offered_actions(driver)
        assert actions, "our turn, but no action to click"
        action = "pass" if "pass" in actions else actions[0]
        try:
            driver.find_element(By.CSS_SELECTOR, '[data-action="%s"]' % action).click()
            break
        except StaleElementReferenceException:
            time.sleep(0.1)  # re-rendered under us: find it again
    wait_until(driver, lambda d: turn_request(d) != request_id, timeout=20,
               what="the page to take the answer to request %s (%s)" % (request_id, action))
    return action


def test_a_person_plays_a_hand_in_the_browser(arena, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(arena.url("/play"))
    wait_until(browser, lambda d: d.find_elements(By.ID, "variant"), what="the play form")
    Select(browser.find_element(By.ID, "variant")).select_by_value("slovenian-4p")
    opponents = browser.find_elements(By.CSS_SELECTOR, "select.opponent")
    assert len(opponents) == 3
    # Bots that bid soberly, so the hand is played out (a random bot's wild
    # Valat ends it at the first trick it loses); a bot may sit twice.
    for sel, name in zip(opponents, ["heuristic", "heuristic-b", "heuristic"]):
        Select(sel).select_by_value(name)
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")
    Select(browser.find_element(By.ID, "hands")).select_by_value("4")
    browser.find_element(By.ID, "start").click()

    wait_until(browser, lambda d: "/play/" in d.current_url, what="the table's address")
    session = browser.current_url.rsplit("/", 1)[1]
    assert len(session) == 32
    url = browser.current_url

    v = view_of(arena, session)
    assert v["seat"] == 1 and v["match_id"].startswith("P-")
    match_id = v["match_id"]
    # The match is a real one on the referee, kind "play", the person's seat "human".
    m = arena.wait_for(lambda: arena.api("/api/matches/" + match_id), timeout=10, what="the match")
    assert m["kind"] == "play"
    assert [s["bot"] for s in m["seats"]] == ["heuristic", "human", "heuristic-b", "heuristic"]

    deadline = time.time() + 300
    clicks = 0
    reloaded = False
    shot = False
    phone_checked = False
    while hands_scored(browser) == 0:
        assert time.time() < deadline, "the hand did not end within 300 s"
        rid = wait_until(browser, lambda d: turn_request(d) or (hands_scored(d) > 0 and "scored"),
                         timeout=60, what="our turn or the hand's end")
        if rid == "scored":
            break
        # What the page offers is what the referee sent this seat, nothing else.
        v = view_of(arena, session)
        assert v["request"] and str(v["request"]["request_id"]) == rid
        offered = sorted(offered_actions(browser))
        assert offered == sorted(v["request"]["legal_actions"])
        # The countdown of a generous per-decision limit.
        countdown = browser.execute_script("return document.getElementById('countdown').textContent;")
        assert countdown.endswith("left") or countdown == "time is up", countdown
        assert v["request"]["time_left_ms"] > 60000
        if not shot and any(a.startswith("play ") for a in offered) and \
                browser.find_elements(By.CSS_SELECTOR, "#trick .card"):
            screenshot(browser, "play.png")
            size = browser.get_window_size()
            browser.set_window_size(412, 915)  # a phone
            time.sleep(0.3)
            screenshot(browser, "play-phone.png")
            browser.set_window_size(size["width"], size["height"])
            shot = True
        # The history in the shared wording, with names (not seat numbers).
        for line in browser.execute_script(
                "return Array.from(document.querySelectorAll('#history li')).map((l) => l.textContent);"):
            first, verb = line.split(" ")[:2]
            if first == "You":
                assert verb in ("pass", "bid", "call", "take", "discard", "announce", "play"), line
            else:
                assert first in ("heuristic", "heuristic-b"), line
        if not phone_checked and any(a.startswith("play ") for a in offered):
            # The table fits a 390 px phone, cards and all.
            browser.set_window_size(390, 900)
            time.sleep(0.3)
            width = browser.execute_script("return document.documentElement.scrollWidth")
            browser.set_window_size(1280, 900)
            assert width <= 390, width
            phone_checked = True
        if not reloaded and any(a.startswith("play ") for a in offered):
            # Reloading resumes the seat: same request, same hand, same actions.
            hand_before = hand_cards(browser)
            browser.refresh()
            wait_until(browser, lambda d: turn_request(d) == rid, timeout=20,
                       what="the reloaded page to offer request %s again" % rid)
            assert browser.current_url == url
            hand_after = hand_cards(browser)
            assert hand_after == hand_before
            reloaded = True
        click_one_action(browser, rid)
        clicks += 1
        assert clicks < 200
    assert reloaded, "the hand ended before a card was played by us"
    assert clicks >= 5

    wait_until(browser, lambda d: hands_scored(d) >= 1, what="the scores of the first hand")
    cells = browser.execute_script(
        "return Array.from(document.querySelector('#hand-results tbody tr:not(.label-row)').querySelectorAll('td'))"
        ".map((td) => td.textContent);")
    assert cells[0] == "1" and len(cells) == 2 + 4, cells
    # At 1366 px the Scores panel sits in the 340 px side column while the
    # match runs (hand 2 of 4 waits for us): every seat's column shows there
    # too (issue 48).
    assert view_of(arena, session)["status"] not in ("done", "failed")
    browser.set_window_size(1366, 900)
    try:
        wait_until(browser, lambda d: d.execute_script(
            "const w = document.querySelector('#hand-results').parentElement;"
            "return w.scrollWidth <= w.clientWidth;"), timeout=10,
            what="every seat's score column in the side column at 1366 px")
    finally:
        browser.set_window_size(1280, 900)
    v = view_of(arena, session)
    assert len(v["hand_results"]) >= 1
    scores = v["hand_results"][0]["scores"]
    assert len(scores) == 4
    shown = [c.replace("\u2212", "-").replace("+", "") for c in cells[2:]]
    assert [int(x) for x in shown] == scores
    print("clicks", clicks, "view", json.dumps({k: v[k] for k in ("decisions", "missed", "hand_results")}))
    assert v["decisions"] >= clicks and v["missed"] == 0  # every click answered in time
    # Only the seat's own view: no record of the revealed hands before the match ends.
    assert "record" not in json.dumps(v)
    screenshot(browser, "play-scores.png")
    # Closing the page: the decisions time out under the usual fault policy
    # (not waited for here: 120 s each).
    browser.get("about:blank")


def play_through_api(arena, variant, opponents, hands, timeout=180):
    """Plays the person's seat of a new match through the HTTP API (the first
    legal action every time) to the end; returns (created, final view, answers)."""
    status, created = post(arena, "/api/play", {
        "variant": variant, "opponents": opponents, "seat": -1, "hands": hands})
    assert status == 200, created
    session = created["id"]
    assert created["url"] == "/play/" + session
    deadline = time.time() + timeout
    answered = 0
    while True:
        assert time.time() < deadline, "the match did not end within %d s" % timeout
        v = view_of(arena, session)
        if v["status"] in ("done", "failed"):
            return created, v, answered
        if v["request"]:
            s, _ = post(arena, "/api/play/%s/action" % session, {
                "request_id": v["request"]["request_id"], "action": v["request"]["legal_actions"][0]})
            assert s == 200
            answered += 1
            # The same request twice: refused.
            s, body = post(arena, "/api/play/%s/action" % session, {
                "request_id": v["request"]["request_id"], "action": v["request"]["legal_actions"][0]})
            assert s == 409, body
        else:
            time.sleep(0.05)


def test_a_whole_match_through_the_api_is_stored_unrated(arena):
    created, v, answered = play_through_api(arena, "slovenian-3p", ["random-a", "heuristic"], 3)
    match_id = created["match_id"]
    assert v["status"] == "done", v.get("error")
    assert v["result"]["faults"][v["seat"]] == 0
    assert not v["result"]["forfeited"]
    assert len(v["hand_results"]) >= 3
    assert answered > 10
    m = arena.wait_for(lambda: (lambda m: m if m["status"] == "done" else None)(
        arena.api("/api/matches/" + match_id)), timeout=20, what="the stored match")
    assert m["kind"] == "play"
    assert m["seats"][v["seat"]]["bot"] == "human"
    assert m["record"]["bots"][v["seat"]] == "human"
    # Unrated: the person's seat never reaches the leaderboard, nor do the bots'
    # ratings move for it.
    board = arena.api("/api/leaderboard?variant=slovenian-3p")
    assert all(e["bot"] != "human" for e in board["entries"])
    human = arena.api("/api/bots/human")
    assert human["retired"], human
    assert not human["ratings"], human
    assert all(b["name"] != "human" for b in arena.api("/api/bots")["bots"])


def test_bad_play_requests_are_refused(arena):
    # Issue 29: starting a play match needs the play cookie the page hands out.
    game = {"variant": "slovenian-3p", "opponents": ["random-a", "heuristic"]}
    s, body = post(arena, "/api/play", game, cookie="")
    assert s == 403 and "play cookie" in body["error"], body
    s, body = post(arena, "/api/play", game, cookie="tarock_play=v1.%s.%s" % ("ab" * 16, "cd" * 16))
    assert s == 403, body
    s, _, headers = arena.get("/play")
    assert s == 200
    cookie = headers.get("Set-Cookie", "")
    assert cookie.startswith("tarock_play=v1.") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    s, body = post(arena, "/api/play", {"variant": "nope", "opponents": []})
    assert s == 400 and "unknown variant" in body["error"]
    s, body = post(arena, "/api/play", {"variant": "slovenian-3p", "opponents": ["random-a"]})
    assert s == 400 and "choose 2 opponents" in body["error"]
    s, body = post(arena, "/api/play", {"variant": "slovenian-3p", "opponents": ["random-a", "ghost"]})
    assert s == 400 and "ghost" in body["error"]
    s, body = post(arena, "/api/play", {"variant": "slovenian-3p", "opponents": ["random-a", "heuristic"],
                                        "hands": 4})
    assert s == 400 and "multiple of 3" in body["error"]
    s, _, _ = arena.get("/api/play/" + "0" * 32)
    assert s == 404
    s, _, _ = arena.get("/play/" + "0" * 32)
    assert s == 404  # the page itself says so
    s, body = post(arena, "/api/play/%s/action" % ("0" * 32), {"request_id": 1, "action": "pass"})
    assert s == 404
    # The reserved name of people's seats.
    with pytest.raises(RuntimeError):
        arena.add_bot("human", "127.0.0.1:1")


def test_the_page_of_a_finished_match(arena, browser):
    from selenium.webdriver.common.by import By
    created, v, _ = play_through_api(arena, "tapp-tarock-classic", ["heuristic", "random-b"], 3)
    assert v["status"] == "done", v.get("error")
    browser.get(arena.url(created["url"]))
    wait_until(browser, lambda d: d.find_elements(By.ID, "result"), what="the match's result")
    link = browser.find_element(By.CSS_SELECTOR, "#result a[href^='/matches/']")
    assert link.get_attribute("href").endswith("/matches/" + created["match_id"])
    assert hands_scored(browser) == len(v["hand_results"])
    screenshot(browser, "play-done.png")
    link.click()
    wait_until(browser, lambda d: "/matches/" + created["match_id"] in d.current_url,
               what="the match viewer")


def test_the_scores_add_up_with_the_settlement_and_name_the_players(arena, browser):
    """Issue 30: on a finished play match the Total row is the sum of the rows shown
    (the hands, then the end-of-match radl settlement as its own row), the columns carry
    the players' names, and the history says "You pass" / "heuristic bids Three"."""
    from selenium.webdriver.common.by import By
    # Random opponents in slovenian-4p leave radli at the end in most matches.
    for _ in range(4):
        created, v, _ = play_through_api(arena, "slovenian-4p", ["random-a", "random-b", "random-c"], 4)
        assert v["status"] == "done", v.get("error")
        if any(v["settlement"]):
            break
    names = ["You" if s == v["seat"] else n for s, n in enumerate(v["seat_names"])]  # three different bots
    browser.get(arena.url(created["url"]))
    wait_until(browser, lambda d: d.find_elements(By.ID, "result"), what="the match's result")
    heads = browser.execute_script(
        "return Array.from(document.querySelectorAll('#hand-results thead th')).map((t) => t.textContent);")
    assert heads[2:] == names, heads
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#hand-results tbody tr:not(.label-row)')).map((tr) => "
        "[tr.className, Array.from(tr.querySelectorAll('td')).slice(2).map((td) => td.textContent)]);")
    num = lambda t: int(t.replace("\u2212", "-").replace("+", ""))
    body = [[num(x) for x in cells] for cls, cells in rows if cls != "total"]
    total = [num(x) for cls, cells in rows if cls == "total" for x in cells]
    assert total == [sum(col) for col in zip(*body)], rows
    assert total == v["result"]["totals"], (total, v["result"])
    has_row = any(cls == "settlement" for cls, _ in rows)
    assert has_row == any(v["settlement"]), (rows, v["settlement"])
    if has_row:
        assert [num(x) for cls, cells in rows if cls == "settlement" for x in cells] == v["settlement"]
    # The same wording as the viewer (common.js), one test of it in test_web.py.
    words = browser.execute_script(
        "return [window.tarock.actionWords('pass', 'You'), window.tarock.actionWords('bid three', 'heuristic')];")
    assert words == ["You pass", "heuristic bids Three"], words
    assert not browser.find_elements(By.XPATH, "//*[contains(text(), 'You passes') or contains(text(), 'You bids')]")
    # The page fits a phone.
    browser.set_window_size(390, 900)
    try:
        browser.get(arena.url(created["url"]))
        wait_until(browser, lambda d: d.find_elements(By.ID, "result"), what="the result on a phone")
        time.sleep(0.3)
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        # Every player's column is on the screen (the table does not scroll
        # sideways), once the page has laid out at this width (a bounded wait:
        # a loaded machine lays out late).
        wait_until(browser, lambda d: d.execute_script(
            "const w = document.querySelector('#hand-results').parentElement;"
            "return w.scrollWidth <= w.clientWidth;"), timeout=10,
            what="the score table to fit the phone: " + str(browser.execute_script(
                "const w = document.querySelector('#hand-results').parentElement;"
                "return [w.scrollWidth, w.clientWidth, w.innerText.slice(0, 300)];")))
        browser.execute_script("document.querySelector('#hand-results').scrollIntoView();")
        screenshot(browser, "play-scores-phone.png")
        # On a phone the contract is a line above the row's numbers, not a column.
        shown = browser.execute_script(
            "const t = document.querySelector('#hand-results');"
            "const vis = (e) => getComputedStyle(e).display !== 'none';"
            "return [Array.from(t.querySelectorAll('tr.label-row')).filter(vis).length,"
            "        Array.from(t.querySelectorAll('.contract')).filter(vis).length];")
        assert shown[0] == len(body) + 1 and shown[1] == 0, shown  # every row, the total too
        # Whatever this match's scores were, the worst this page must fit: the
        # same table for five seats with long names and -16400 in every cell,
        # laid out beside it in the same page (measured in one script, before
        # any re-render).
        worst = browser.execute_script(
            "const t = document.querySelector('#hand-results').cloneNode(true); t.id = 'worst-case';"
            "t.querySelectorAll('tr').forEach((tr) => {"
            "  const last = tr.lastElementChild;"
            "  if (tr.classList.contains('label-row')) last.colSpan += 1; else tr.appendChild(last.cloneNode(true)); });"
            "t.querySelectorAll('td.num').forEach((td) => { td.textContent = '\u221216400'; });"
            "t.querySelectorAll('th.num').forEach((th) => { th.textContent = 'heuristic_bot_with_long_name'; });"
            "const w = document.createElement('div'); w.className = 'table-wrap'; w.appendChild(t);"
            "document.querySelector('#hand-results').parentElement.after(w);"
            "const r = [w.scrollWidth, w.clientWidth, t.querySelectorAll('thead th.num').length]; w.remove(); return r;")
        assert worst[2] == 5 and worst[0] <= worst[1], worst
    finally:
        browser.set_window_size(1280, 900)


class PlayStack(ArenaStack):
    """A stack whose arena gets extra flags (a short play time limit)."""

    def __init__(self, arena_args, **kw):
        super().__init__(**kw)
        self.arena_args = list(arena_args)

    def _start(self, name, argv, port):
        if name == "arena":
            argv = argv + self.arena_args
        return super()._start(name, argv, port)


def test_a_closed_page_times_out_and_forfeits_the_seat(browser):
    from selenium.webdriver.common.by import By
    bots = [("random-a", "tarock-bot-random", ["--seed", "1"], "arena"),
            ("random-b", "tarock-bot-random", ["--seed", "2"], "arena")]
    with PlayStack(["--play_decision_ms", "700", "--play_max_faults", "2"], bots=bots,
                   variants=["slovenian-3p"]) as stack:
        status, created = post(stack, "/api/play", {
            "variant": "slovenian-3p", "opponents": ["random-a", "random-b"], "seat": 0, "hands": 3})
        assert status == 200, created
        browser.get(stack.url(created["url"]))
        wait_until(browser, lambda d: turn_request(d), timeout=20, what="our first turn")
        v = view_of(stack, created["id"])
        assert v["per_decision_ms"] == 700
        browser.get("about:blank")  # the page is closed: nobody answers
        v = stack.wait_for(lambda: (lambda v: v if v["status"] == "done" else None)(
            view_of(stack, created["id"])), timeout=120, what="the match to end without us")
        assert v["result"]["forfeited"]
        assert v["result"]["faults"][0] == 2
        assert v["missed"] >= 1
        m = stack.wait_for(lambda: (lambda m: m if m["status"] == "done" else None)(
            stack.api("/api/matches/" + created["match_id"])), timeout=20, what="the stored match")
        assert m["kind"] == "play" and m["seats"][0]["forfeited"] and m["seats"][0]["faults"] == 2
        # Coming back shows how it ended.
        browser.get(stack.url(created["url"]))
        wait_until(browser, lambda d: d.find_elements(By.ID, "result"), what="the result")
        assert "forfeited" in browser.find_element(By.ID, "result").text


def test_a_play_match_cut_by_an_arena_restart_is_marked_failed():
    import signal
    import subprocess
    from conftest import wait_port
    bots = [("random-a", "tarock-bot-random", ["--seed", "1"], "arena"),
            ("random-b", "tarock-bot-random", ["--seed", "2"], "arena")]
    with PlayStack([], bots=bots, variants=["slovenian-3p"]) as stack:
        status, created = post(stack, "/api/play", {
            "variant": "slovenian-3p", "opponents": ["random-a", "random-b"], "seat": 0, "hands": 3})
        assert status == 200, created
        stack.wait_for(lambda: view_of(stack, created["id"])["request"], timeout=20,
                       what="our first turn")
        argv = stack.arena.args
        os.killpg(stack.arena.pid, signal.SIGKILL)
        stack.arena.wait(timeout=10)
        log = open(os.path.join(stack.dir, "arena2.log"), "wb")
        stack.arena = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        stack.procs.append(stack.arena)
        wait_port(stack.http_port, stack.arena)
        m = stack.wait_for(lambda: (lambda m: m if m["status"] == "failed" else None)(
            stack.api("/api/matches/" + created["match_id"])), timeout=20, what="the failed match")
        assert "restarted" in m["error"]
        # The session lived in the old process: its address is gone.
        s, _, _ = stack.get("/api/play/" + created["id"])
        assert s == 404
