"""The site after duplicate ladders and events (issue 48) in a real browser
against a real arena (conftest.py): six bots in slovenian-3p, an open ladder
of duplicate sets rated on margins, and a class event of three of them whose
ladder plays single matches rated on places.

- a bot on the margin ladder only shows its standing there (rank, points a
  deal, the ladder and model it comes from, the sets it rests on) on /bots and
  on its page, and its results per variant come from its matches alone;
- an event's ladder page shows that event's standings under its model and
  names the event; /ladders names each ladder's event;
- on a phone no table of these pages scrolls sideways inside its box;
- the home page features the newest set whose deal is public, each table of
  it a link that plays the record back by itself (and pauses);
- a finished table of a duplicate set whose deal another table still plays
  turns into its record by itself when the set's last table ends;
- a live match costs the page under 0.5 ms of main-thread CPU an event
  (live_bench.py, which measures it on a 480-hand match for benchmarks.md).

    TAROCK_BUILD_DIR=build python3 -m pytest -q tests/web/test_site.py
"""

import os

import pytest

from conftest import wait_until, csp_violations

SCREENSHOTS = os.environ.get("TAROCK_SCREENSHOTS", "")
SIX = [("heuristic-%d" % i, "tarock-bot-heuristic", [], "arena") for i in (1, 2, 3)] + \
      [("random-%d" % i, "tarock-bot-random", ["--seed", str(i)], "arena") for i in (1, 2, 3)]
CLASS = ["random-1", "random-2", "random-3"]


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


# Tables that overflow their box sideways on this page (each as its first
# header's text). A note under one names the columns it hides on a phone, not
# those cut off at its right edge (nor its own end): such a table reflows.
OVERFLOWING = """
  return Array.from(document.querySelectorAll('.table-wrap')).filter((w) => w.scrollWidth > w.clientWidth + 1)
    .map((w) => (w.querySelector('th') || w).textContent.slice(0, 40));"""
# Tables that leave columns out (a header not displayed) without a note that
# names each of them (docs/web.md, "On a phone"). A table that reflows hides
# its header row and labels every cell instead.
UNNAMED = """
  return Array.from(document.querySelectorAll('table.grid')).filter((t) => {
    if (!t.tHead || getComputedStyle(t.tHead).display === 'none') return false;
    const note = t.querySelector('caption.hidden-note');
    const shown = note && getComputedStyle(note).display !== 'none' ? note.textContent : '';
    return Array.from(t.querySelectorAll('thead th')).some((th) =>
        th.textContent && getComputedStyle(th).display === 'none' && !shown.includes(th.textContent));
  }).map((t) => (t.querySelector('th') || t).textContent.slice(0, 40));"""


@pytest.fixture(scope="module")
def site(start_stack):
    """Two sets of the open margin ladder booked, and a class event whose place
    ladder rated its three bots, then closed (its ladder stopped)."""
    stack = start_stack(bots=SIX, max_parallel=2, variants=["slovenian-3p"])
    stack.cli("ladder", "start", "--variant", "slovenian-3p", "--hands", "3", "--max_matches", "4")
    out = stack.cli("events", "create", "class-3", "--name", "Class of three", "--kind", "class",
                    "--variants", "slovenian-3p", "--hands", "3")
    token = next(l.split()[1] for l in out.splitlines() if l.startswith("organiser_token "))
    for bot in CLASS:
        stack.cli("events", "enter", "class-3", "--bot", bot, "--organiser_token", token,
                  "--token", stack.tokens[bot])
    stack.wait_for(
        lambda: (b := stack.api("/api/leaderboard?variant=slovenian-3p&rating_model=margin")) and
        len(b.get("entries", [])) == 6 and all(e["margin"].get("sets") == 2 for e in b["entries"]),
        timeout=120, what="two margin sets booked")
    stack.wait_for(
        lambda: (b := stack.api("/api/leaderboard?variant=slovenian-3p&event=class-3&rating_model=place")) and
        len(b.get("entries", [])) == 3 and all(e["rating"]["matches"] >= 1 for e in b["entries"]),
        timeout=120, what="the class's ladder to rate its bots")
    stack.cli("events", "close", "class-3", "--organiser_token", token)
    return stack


def test_a_bot_on_the_margin_ladder_only_shows_its_standing(site, browser):
    from selenium.webdriver.common.by import By
    name = "heuristic-1"
    bot = site.api("/api/bots/" + name)
    assert not any(r["matches"] for r in bot.get("ratings", [])), bot["ratings"]  # no place rating
    lb = site.api("/api/leaderboard?variant=slovenian-3p&rating_model=margin")
    entry = next(e for e in lb["entries"] if e["bot"] == name)
    # As the page writes it (common.js signed): a sign, none on a zero (a bot
    # whose margins cancel out shows "0.00": seen once in CI).
    mu = "%+.2f" % entry["margin"]["mu"]
    if float(mu) == 0:
        mu = "0.00"
    browser.set_window_size(1366, 900)
    browser.get(site.url("/bots"))
    wait_until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "table tbody tr")) == 6, what="the bot list")
    row = next(tr for tr in browser.find_elements(By.CSS_SELECTOR, "table tbody tr")
               if tr.find_element(By.CSS_SELECTOR, "td a").text == name)
    text = row.get_attribute("textContent")
    assert "#%d of 6" % entry["rank"] in text, text
    assert mu.replace("-", "\u2212") in text or mu in text, (mu, text)
    assert "points a deal" in text and "open ladders" in text and "margin" in text, text
    assert "2 sets" in text, text
    # A class bot's row says which event its place rating comes from.
    row = next(tr for tr in browser.find_elements(By.CSS_SELECTOR, "table tbody tr")
               if tr.find_element(By.CSS_SELECTOR, "td a").text == "random-1")
    assert "open ladders" in row.get_attribute("textContent")  # the margin ladder comes first
    screenshot(browser, "bots-standings.png")

    # Its page: the headline is its margin standing; the results come from its matches.
    stats = site.api("/api/bots/%s/stats" % name)["variants"][0]
    browser.get(site.url("/bots/" + name))
    wait_until(browser, lambda d: d.find_elements(By.ID, "results"), what="the bot page")
    head = browser.find_element(By.ID, "headline").text
    assert "#%d of 6" % entry["rank"] in head and "margin" in head and "open ladders" in head, head
    standings = browser.find_elements(By.CSS_SELECTOR, "#bot-standings tbody tr")
    assert len(standings) == 1 and "points a deal" in standings[0].text, [r.text for r in standings]
    # Why its margin and its per hand differ so (issue 48, low): the cap of a margin.
    legend = browser.find_element(By.CSS_SELECTOR, "#bot-standings .legend").text
    assert "at most \u00b130 in a margin" in legend and "uncapped" in legend, legend
    results = browser.find_element(By.CSS_SELECTOR, "#results tbody tr").get_attribute("textContent")
    assert "No " not in results, results
    assert str(stats["matches"]) in results and "%d (" % stats["wins"] in results, (stats, results)
    screenshot(browser, "bot-standing.png")
    assert not csp_violations(browser)


def test_an_event_ladder_page_shows_that_events_standings(site, browser):
    from selenium.webdriver.common.by import By
    ladders = site.api("/api/ladders")["ladders"]
    cls = next(l for l in ladders if l["config"].get("event") == "class-3")
    opened = next(l for l in ladders if not l["config"].get("event"))
    board = site.api("/api/leaderboard?variant=slovenian-3p&event=class-3&rating_model=place")
    browser.set_window_size(1366, 900)
    browser.get(site.url("/ladders/%s" % cls["id"]))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#ladder-standings tbody tr td a"),
               what="the class ladder's standings")
    shown = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#ladder-standings tbody tr td a")]
    assert shown == [e["bot"] for e in board["entries"]], (shown, board["entries"])
    assert set(shown) == set(CLASS)
    assert "Class of three" in browser.find_element(By.ID, "ladder-of").text
    panel = browser.find_element(By.ID, "ladder-standings")
    assert panel.get_attribute("data-rating-model") == "place" and "Points a deal" not in panel.text
    screenshot(browser, "ladder-of-event.png")
    # The open ladder's page: the open margin standings of all six.
    browser.get(site.url("/ladders/%s" % opened["id"]))
    wait_until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#ladder-standings tbody tr")) == 6,
               what="the open ladder's standings")
    assert "open ladders" in browser.find_element(By.ID, "ladder-of").text
    # The list names each ladder's event.
    browser.get(site.url("/ladders"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".ladder-event"), what="the ladders list")
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, ".ladder-event")] == ["Class of three"]


def test_an_event_page_ladder_has_a_legend_and_provisional_marks(site, browser):
    """Issue 48 (low): the event page's ladder says what its numbers are and
    marks the ratings that rest on too few matches, as the leaderboard does."""
    from selenium.webdriver.common.by import By
    board = site.api("/api/leaderboard?variant=slovenian-3p&event=class-3")
    # (How many matches the class played before it closed depends on the
    # machine's speed: the marks are compared with the API's, whichever they are.)
    assert board["rating_model"] == "place" and len(board["entries"]) == 3, board
    browser.set_window_size(1366, 900)
    browser.get(site.url("/events/class-3"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".ladder-panel tbody tr td a"),
               what="the class's ladder")
    panel = browser.find_element(By.CSS_SELECTOR, ".ladder-panel")
    marked = {tr.find_element(By.CSS_SELECTOR, "td a").text: bool(tr.find_elements(By.CSS_SELECTOR, ".provisional"))
              for tr in panel.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert marked == {e["bot"]: e["provisional"] for e in board["entries"]}, (marked, board["entries"])
    legend = panel.find_element(By.CSS_SELECTOR, ".ladder-legend").text
    assert "Place ratings" in legend and "provisional = fewer than 10 rated matches" in legend, legend


def test_no_table_scrolls_sideways_on_a_phone_without_a_note(site, browser):
    """Nor the lists of events, tournaments and tests, nor an event's page with
    its final's standings and pairs (four bots at three seats: pairs that
    played apart too), issue 48 (low)."""
    import datetime
    cls = next(l for l in site.api("/api/ladders")["ladders"] if l["config"].get("event") == "class-3")
    deadline = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=12)
    out = site.cli("events", "create", "final-4", "--name", "Final of four", "--kind", "competition",
                   "--variants", "slovenian-3p", "--hands", "3", "--final_deals", "6",
                   "--deadline", deadline.strftime("%Y-%m-%d %H:%M:%S"))
    token = next(l.split()[1] for l in out.splitlines() if l.startswith("organiser_token "))
    for bot in ("heuristic-1", "heuristic-2", "random-1", "random-2"):
        site.cli("events", "enter", "final-4", "--bot", bot, "--organiser_token", token, "--token", site.tokens[bot])
    site.wait_for(lambda: (e := site.api("/api/events/final-4"))["status"] == "finished" and e.get("pairs"),
                  timeout=120, what="the final of four and its pairs")
    browser.set_window_size(390, 844)
    try:
        for path in ("/bots", "/bots/heuristic-1", "/bots/random-1", "/ladders", "/ladders/%s" % cls["id"],
                     "/events", "/events/final-4", "/tournaments", "/tests"):
            browser.get(site.url(path))
            wait_until(browser, lambda d: d.find_elements("css selector", ".table-wrap tbody tr"), what=path)
            if path == "/events/final-4":
                wait_until(browser, lambda d: d.find_elements("css selector", "#pairs tbody tr"), what="the pairs")
                # "A deal" beside "Margin": the page says why they differ (the cap of a margin).
                results = browser.find_element("id", "results").text
                assert "at most \u00b130 in a margin" in results, results
                # One word per thing (issue 48, low): the pairs count matches, as
                # the plan does ("N tables of 3 in every seating (M matches)").
                heads = [th.get_attribute("textContent") for th in browser.find_elements("css selector", "#pairs th")]
                assert heads[1] == "Matches together", heads
            assert browser.execute_script(OVERFLOWING) == [], path
            assert browser.execute_script(UNNAMED) == [], path
            assert browser.execute_script("return document.documentElement.scrollWidth") <= 390, path
            screenshot(browser, "phone-" + path.strip("/").replace("/", "-") + ".png")
    finally:
        browser.set_window_size(1280, 900)


def test_the_live_view_costs_the_main_thread_little_per_event(start_stack, browser):
    """A live match of 128 hands watched to its end (live_bench.py): the page's
    main thread spends under 0.5 ms of CPU an event (0.11 measured; 1.33 on main before
    issue 48, drawing every event and rebuilding the hands table each hand),
    and the page keeps at most a few hundred events in its state."""
    import live_bench
    stack = start_stack(bots=live_bench.BOTS, max_parallel=1, variants=["slovenian-4p"])
    browser.set_window_size(1366, 900)
    for attempt in range(3):  # a page that connects after the match ended saw nothing: another match
        try:
            r = live_bench.measure(stack, browser, 128, timeout=240)
            break
        except live_bench.MissedMatch:
            if attempt == 2:
                raise
    print(r)
    assert r["events"] > 500, r
    assert r["task_ms_per_event"] < 0.5, r
    kept = browser.execute_script("return window.tarock.liveState.events.length")
    assert kept <= 800, kept


def test_the_home_page_features_the_last_set_to_watch(site, browser):
    """Something to watch without leaking a deal: the newest finished set whose
    deal is public (every table of it has finished), each table a link that
    plays the record back by itself, the result still folded away."""
    from selenium.webdriver.common.by import By
    done = site.api("/api/matches?status=done&limit=40")["matches"]
    newest = next(m for m in done if m["deal_public"])
    tables = sorted(m["id"] for m in done if m["deal_public"] and m["seed_commitment"] == newest["seed_commitment"])
    assert tables, done
    browser.set_window_size(1366, 900)
    browser.get(site.url("/"))
    wait_until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#watch a.watch-link"), what="the set to watch")
    links = [a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "#watch a.watch-link")]
    assert [h.split("/matches/")[1] for h in links] == [t + "?watch=1" for t in tables], links
    browser.get(links[0])
    wait_until(browser, lambda d: d.find_elements(By.ID, "pos") and " action 3 of " in d.find_element(By.ID, "pos").text,
               timeout=20, what="the record playing forward by itself")
    assert browser.find_element(By.ID, "btn-watch").text.endswith("pause")
    assert browser.find_element(By.ID, "match-result").get_attribute("open") is None
    browser.find_element(By.ID, "btn-watch").click()  # pauses
    at = browser.find_element(By.ID, "pos").text
    import time
    time.sleep(2.5)
    assert browser.find_element(By.ID, "pos").text == at


def test_a_finished_table_turns_into_its_record_when_its_set_ends(start_stack, browser):
    """A duplicate tournament's deal at three tables, one after another (one
    referee slot): the first table to finish (in the database) is shown as
    running while the deal is still played elsewhere (docs/security.md,
    "Secret deals": that it ended, and when, is sealed too), then shows its
    record by itself, without a reload, once the last table has finished."""
    import sqlite3
    from selenium.webdriver.common.by import By
    stack = start_stack(bots=[("quick-a", "tarock-bot-random", ["--seed", "1"], "arena"),
                              ("quick-b", "tarock-bot-random", ["--seed", "2"], "arena"),
                              ("late", "faulty_bot", ["--mode", "late", "--delay_ms", "40"], "arena")],
                        max_parallel=1, variants=["slovenian-3p"])
    stack.cli("tournament", "run", "--variant", "slovenian-3p", "--bots", "quick-a,quick-b,late",
              "--deals", "1", "--hands", "6")
    tid = stack.api("/api/tournaments")["tournaments"][0]["id"]

    def first_done():
        db = sqlite3.connect("file:%s?mode=ro" % os.path.join(stack.dir, "data", "arena.db"), uri=True, timeout=10)
        try:
            st = dict(db.execute("SELECT id, status FROM matches WHERE tournament_id = ?", (int(tid),)))
        finally:
            db.close()
        done = [i for i, x in st.items() if x == "done"]
        return done[0] if done and len(done) < len(st) else None
    mid = stack.wait_for(first_done, timeout=60, what="one table done while another plays the deal")
    m = stack.api("/api/matches/" + mid)
    assert m["status"] == "running" and not m["deal_public"], m
    browser.set_window_size(1366, 900)
    browser.get(stack.url("/matches/" + mid))
    wait_until(browser, lambda d: "nothing of it is shown until every table has finished"
               in d.find_element(By.ID, "main").text, what="the sealed table shown as running")
    browser.execute_script("window.__notReloaded = 1;")
    wait_until(browser, lambda d: d.find_elements(By.ID, "hand-tabs"), timeout=120,
               what="the record once the set's last table finished")
    assert browser.execute_script("return window.__notReloaded") == 1
    assert stack.api("/api/matches/" + mid)["deal_public"]
