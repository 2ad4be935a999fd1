"""Margin leaderboards (issue 33, docs/ratings.md) in a real browser against a
real arena (conftest.py): a duplicate ladder of six bots in slovenian-3p,
rated on margins; the leaderboard shows points a deal with the 95% interval,
the deals each rating rests on, and marks the neighbours whose intervals
overlap, as the JSON API says; the place ratings are one link away (both
histories kept). Checked at desktop width and at a 390 px phone width.

    TAROCK_BUILD_DIR=build python3 -m pytest -q tests/web/test_ratings.py
"""

import os

from conftest import wait_until, csp_violations

SCREENSHOTS = os.environ.get("TAROCK_SCREENSHOTS", "")
SETS = 4

BOTS = [("heuristic-%d" % i, "tarock-bot-heuristic", [], "arena") for i in (1, 2, 3)] + \
       [("random-%d" % i, "tarock-bot-random", ["--seed", str(i)], "arena") for i in (1, 2, 3)]


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


def signed(x):
    """A number as the pages' T.signed(x, 2) shows it."""
    s = "%.2f" % x
    if s.strip("-0.") == "":
        return s.lstrip("-")
    return "+" + s if x > 0 else s.replace("-", "\u2212")


def rows(browser):
    """The board's rows as the page shows them: one list of cell texts each."""
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#board tbody tr')).map(tr =>"
        " Array.from(tr.querySelectorAll('td')).map(td => td.textContent))")


def test_a_margin_leaderboard_shows_intervals_deals_and_unseparated_neighbours(start_stack, browser):
    stack = start_stack(bots=BOTS, max_parallel=2)
    stack.cli("ladder", "start", "--variant", "slovenian-3p", "--hands", "3",
              "--max_matches", str(2 * SETS))
    lb = stack.wait_for(
        lambda: (b := stack.api("/api/leaderboard?variant=slovenian-3p")) and
        len(b.get("entries", [])) == 6 and
        all(e["margin"].get("sets") == SETS for e in b["entries"]) and b,
        timeout=120, what="four sets booked")
    assert lb["rating_model"] == "margin"
    assert lb["unit"] == "points a deal"
    for e in lb["entries"]:
        m = e["margin"]
        assert m["low"] < m["mu"] < m["high"], e
        assert int(m["deals"]) == 3 * SETS, e
    for width, name in ((1280, "desktop"), (390, "phone")):
        browser.set_window_size(width, 900)
        browser.get(stack.url("/leaderboard/slovenian-3p"))
        wait_until(browser, lambda d: len(rows(d)) == 6, what="the margin board at " + name)
        shown = rows(browser)
        legend = browser.find_element("id", "board-legend").text
        assert "points a deal" in legend and "95% interval" in legend, legend
        for e, cells in zip(lb["entries"], shown):
            text = " ".join(cells)
            assert e["bot"] in text, (e["bot"], text)
            assert "[" in text and "]" in text, text            # the interval
            assert str(int(e["margin"]["deals"])) in cells, cells  # the deals
            # The mark says what the API says about this row and the next.
            assert ("\u2248 next" in text) == bool(e.get("unseparated_from_next")), (e, text)
        # How far each bot is above the next head to head (issue 47): the
        # difference and its interval, as the API gives them.
        for e, nxt, cells in zip(lb["entries"], lb["entries"][1:], shown):
            h = e["vs_next"]
            assert abs(h["diff"] - (e["margin"]["mu"] - nxt["margin"]["mu"])) < 1e-9, (e, nxt)
            assert h["low"] < h["diff"] < h["high"], h
            text = " ".join(cells)
            assert "%s [%s, %s]" % (signed(h["diff"]), signed(h["low"]), signed(h["high"])) in text, (h, text)
        # The last row has no next.
        assert "vs_next" not in lb["entries"][-1]
        assert "\u2248 next" not in " ".join(shown[-1])
        if width == 390:
            assert browser.execute_script(
                "return document.documentElement.scrollWidth") <= 390, "the board overflows a phone"
        screenshot(browser, "leaderboard-margin-%s.png" % name)
        assert not csp_violations(browser)
    # ?compare=A,B: one line, how far the bots named A(-...) are above those
    # named B(-...) head to head, as `tarock-arena-cli leaderboard --compare`.
    browser.get(stack.url("/leaderboard/slovenian-3p?compare=heuristic,random"))
    wait_until(browser, lambda d: "head to head" in d.find_element("id", "board-versus").text,
               what="the compare line")
    line = browser.find_element("id", "board-versus").text
    by = {e["bot"]: e["margin"] for e in lb["entries"]}
    diff = sum(by["heuristic-%d" % i]["mu"] - by["random-%d" % i]["mu"] for i in (1, 2, 3)) / 3
    assert line.startswith("heuristic (3 bots) is %.2f points a deal %s random (3 bots) head to head"
                           % (abs(diff), "above" if diff >= 0 else "below")), (line, diff)
    # A bot's page shows its margin rating as the leaderboard does.
    first = lb["entries"][0]
    bot = stack.api("/api/bots/" + first["bot"])
    assert [r["variant"] for r in bot["margin_ratings"]] == ["slovenian-3p"], bot
    assert bot["margin_ratings"][0]["margin"]["mu"] == first["margin"]["mu"]
    browser.get(stack.url("/bots/" + first["bot"]))
    wait_until(browser, lambda d: "points a deal" in d.find_element("id", "bot-standings").text,
               what="the bot page's margin ratings")
    screenshot(browser, "bot-margin.png")
    # The ladder's page says what it is and speaks the same unit.
    ladder = stack.api("/api/ladders")["ladders"][-1]
    assert ladder["config"]["format"] == "duplicate" and ladder["config"]["rating_model"] == "margin"
    browser.get(stack.url("/ladders/%s" % ladder["id"]))
    wait_until(browser, lambda d: "duplicate" in d.find_element("id", "main").text and
               "points a deal" in d.find_element("id", "ladder-standings").text.lower(),
               what="the ladder page")
    screenshot(browser, "ladder-margin.png")
    # Both histories: the place ratings are one link away (empty here: a
    # margin ladder never writes them).
    browser.set_window_size(1280, 900)
    browser.get(stack.url("/leaderboard/slovenian-3p"))
    wait_until(browser, lambda d: len(rows(d)) == 6, what="the margin board again")
    browser.find_element("id", "other-model").click()
    wait_until(browser, lambda d: "rating_model=place" in d.current_url and
               "OpenSkill" in d.find_element("id", "board-legend").text, what="the place board")
    assert "No rated bot" in browser.find_element("id", "board").text
    assert stack.api("/api/leaderboard?variant=slovenian-3p&rating_model=place")["entries"] == []
