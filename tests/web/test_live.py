"""Live spectating and tournaments that wait for a benched bot (issue 30), with
real processes on loopback (fixtures in conftest.py):

- a running ladder match's page shows its actions as they are played, pushed by
  server-sent events (no reload), and the home page lists it while it runs; at
  every moment the page (its DOM and its JavaScript state) and the raw SSE bytes
  an outsider reads with curl name no card that is still hidden (another
  seat's hand, a hidden discard), checked against the match record once the
  match is over; then the page shows the full record;
- a duplicate tournament's match shows nothing of its deal live; a stream for a
  match that does not run ends at once; 200 streams open at once while the
  pages still answer, and the per-client cap refuses the 17th from one address;
- a tournament with a bot nobody listens for waits for it (and says so on its
  API and page), then fails that bot's matches with the reason; one whose bot
  comes up while it waits plays every match.
"""

import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import BIN, free_port, wait_port, wait_until

CARD = re.compile(r"(?<![A-Za-z0-9])(T(?:1[0-9]|2[0-2]|[1-9])|[HDCS](?:K|Q|N|J|10|[1-9]))(?![A-Za-z0-9])")

SLOW = [
    ("heuristic", "tarock-bot-heuristic", [], "arena"),
    ("heuristic-b", "tarock-bot-heuristic", [], "arena"),
    ("slow-a", "faulty_bot", ["--mode", "late", "--delay_ms", "120"], "arena"),
    ("slow-b", "faulty_bot", ["--mode", "late", "--delay_ms", "120"], "arena"),
]


@pytest.fixture(scope="module")
def slow(start_stack):
    """An arena whose matches take seconds: two bots answer after 120 ms."""
    return start_stack(bots=SLOW, max_parallel=4, variants=["slovenian-4p"])


def cards_in(text):
    return set(CARD.findall(text))


def hidden_at(deal, index):
    """The cards still hidden after the hand's actions 0..index: every card of a
    seat's hand not yet played nor laid away face up (a tarock's discard is
    shown in the Slovenian rules; a suit card's stays hidden). The king called
    is named by the call, not who holds it."""
    hidden = set(c for hand in deal["hands"] for c in hand)
    for a in deal["actions"][: index + 1]:
        text = a if isinstance(a, str) else a.get("action", "")
        verb, _, card = text.partition(" ")
        if verb == "play" or (verb == "discard" and card.startswith("T")):
            hidden.discard(card)
        if verb == "call":  # the king called is named (who holds it is not)
            hidden.discard(card + "K")
    return hidden


def running_match(stack, timeout=60):
    def find():
        r = stack.api("/api/matches?status=running&limit=5")
        return r["matches"][0]["id"] if r.get("matches") else None
    return stack.wait_for(find, timeout=timeout, what="a running match")


def sse_events(raw):
    """(event, data) pairs of a text/event-stream body."""
    out = []
    for block in raw.replace("\r\n", "\n").split("\n\n"):
        event, data = "", []
        for line in block.split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        if event or data:
            out.append((event, "\n".join(data)))
    return out


def test_a_running_match_is_shown_live_with_no_hidden_card(slow, browser):
    slow.cli("ladder", "start", "--variant", "slovenian-4p", "--format", "match", "--hands", "4", "--max_matches", "1")
    mid = running_match(slow)
    # An outsider reads the raw stream with curl for as long as the match runs.
    raw_path = os.path.join(slow.dir, "attacker.sse")
    curl = subprocess.Popen(["curl", "-sN", "--max-time", "120", "-o", raw_path,
                             slow.url("/api/live/matches/" + mid)], start_new_session=True)
    try:
        # The home page lists it among the matches being played now.
        browser.get(slow.url("/"))
        wait_until(browser, lambda d: mid in d.find_element("id", "live-list").text, timeout=20,
                   what="the match in 'Being played now'")
        browser.get(slow.url("/matches/" + mid))
        wait_until(browser, lambda d: len(d.find_elements("css selector", "#live-log li")) >= 2, timeout=30,
                   what="live actions")
        # In the viewer's and the play page's words (common.js), with the players' names.
        names = [st["bot"] for st in sorted(slow.api("/api/matches/" + mid)["seats"], key=lambda st: st["seat"])]
        lines = browser.execute_script(
            "return Array.from(document.querySelectorAll('#live-log li .words')).map((e) => e.textContent);")
        assert len(lines) >= 2, lines
        for line in lines:
            assert any(line.startswith(nm + " ") for nm in names), (line, names)
            assert not any(w in line for w in (" calls H", " calls D", " calls C", " calls S",
                                                "takes talon group", "kontra on", "open-beggar")), line
        marker = browser.execute_script("window.__notReloaded = 7; return 7;")
        # Desktop and a 390 px phone: the live page fits without sideways scrolling.
        shots = os.environ.get("TAROCK_SCREENSHOTS")
        for width in (1280, 390):
            browser.set_window_size(width, 900)
            time.sleep(0.5)
            assert browser.execute_script(
                "return document.documentElement.scrollWidth <= window.innerWidth + 1"), width
            if shots:
                os.makedirs(shots, exist_ok=True)
                browser.save_screenshot(os.path.join(shots, "live-%d.png" % width))
        browser.set_window_size(1280, 900)
        snap_js = """
          const s = window.tarock.liveState;
          const acts = s.events.filter((e) => e.type === 'action' || e.type === 'hand');
          const last = acts.length ? acts[acts.length - 1].data : null;
          const mine = last ? s.events.filter((e) => e.data && e.data.hand === last.hand) : [];
          // The page is drawn at most every 100 ms (issue 48): its DOM shows the
          // moment of s.drawn, its state the last event's.
          return {html: document.getElementById('main').innerHTML, state: JSON.stringify(mine),
                  hand: last ? last.hand : -1, index: last ? last.index : -2, ended: !!s.ended,
                  drawn: s.drawn, log: document.querySelectorAll('#live-log li').length};"""
        snaps = []
        deadline = time.time() + 120
        while time.time() < deadline:
            s = browser.execute_script(snap_js)
            if s["ended"]:
                break
            snaps.append(s)
            time.sleep(0.3)
        assert snaps, "no snapshot of the live page"
        # Actions appeared without a reload.
        indexes = {(s["hand"], s["index"]) for s in snaps}
        assert len(indexes) >= 5, indexes
        assert browser.execute_script("return window.__notReloaded;") == marker
        # At the end the page shows the full record (a ladder's deal is public once it is over).
        wait_until(browser, lambda d: d.find_elements("id", "hand-tabs"), timeout=30, what="the full record")
        assert browser.execute_script("return window.__notReloaded;") == marker
    finally:
        curl.wait(timeout=150)
    match = slow.api("/api/matches/" + mid)
    assert match["status"] == "done" and match["deal_public"], match["status"]
    deals = match["record"]["deals"]
    by_hand = {d["hand_index"]: d for d in deals if not d.get("redeal")}
    # Page: DOM and JS state at every moment held nothing still hidden.
    checked = drawn_checked = 0
    for s in snaps:
        if s["hand"] not in by_hand or s["index"] < -1:
            continue
        hidden = hidden_at(by_hand[s["hand"]], s["index"])
        leaked = cards_in(s["state"]) & hidden
        assert not leaked, "the live page's state named hidden cards %s at hand %d action %d" % (
            sorted(leaked), s["hand"], s["index"])
        d = s["drawn"]
        if d["hand"] in by_hand and d["index"] >= -1:
            leaked = cards_in(s["html"]) & hidden_at(by_hand[d["hand"]], d["index"])
            assert not leaked, "the live page showed hidden cards %s at hand %d action %d" % (
                sorted(leaked), d["hand"], d["index"])
            drawn_checked += 1
        checked += 1
    assert checked >= 5 and drawn_checked >= 5, (checked, drawn_checked)
    # Raw SSE bytes: the same for every event, and never a hand or a seed.
    raw = open(raw_path, encoding="utf-8").read()
    events = sse_events(raw)
    kinds = [e for e, _ in events]
    assert kinds[0] == "match" and "action" in kinds and "hand_end" in kinds and kinds[-1] == "end", kinds[:5]
    actions = 0
    for event, data in events:
        if event not in ("hand", "action"):
            if event != "hand_end":
                assert not cards_in(data), (event, data)
            continue
        d = json.loads(data)
        assert "hands" not in d["state"] and "hand" not in d["state"] and "seed" not in data
        if d["hand"] not in by_hand:
            continue
        leaked = cards_in(data) & hidden_at(by_hand[d["hand"]], d["index"])
        assert not leaked, "the SSE stream named hidden cards %s: %s" % (sorted(leaked), data)
        actions += 1
    assert actions >= 20
    # Hidden discards were sent as such, when the match had any.
    for d in by_hand.values():
        for a in d["actions"]:
            text = a if isinstance(a, str) else a.get("action", "")
            if text.startswith("discard ") and not text[8:].startswith("T"):
                assert '"action":"discard ?"' in raw


def test_streams_for_outsiders_duplicates_and_many_clients(slow):
    # A match that is not running: one "end" event, closed at once.
    out = subprocess.run(["curl", "-sN", "--max-time", "10", slow.url("/api/live/matches/NOPE-1")],
                         capture_output=True, text=True, timeout=20)
    assert sse_events(out.stdout) and sse_events(out.stdout)[-1][0] == "end", out.stdout
    assert "not running" in out.stdout
    # A duplicate tournament: its matches show nothing of the deal while it runs.
    slow.cli("tournament", "run", "--variant", "slovenian-4p", "--bots",
             "heuristic,heuristic-b,slow-a,slow-b", "--deals", "1", "--hands", "4")
    tid = slow.api("/api/tournaments")["tournaments"][0]["id"]

    def running_tournament_match():
        r = slow.api("/api/matches?status=running&tournament=%s&limit=5" % tid)
        return r["matches"][0]["id"] if r.get("matches") else None
    mid = slow.wait_for(running_tournament_match, timeout=60, what="a running tournament match")
    out = subprocess.run(["curl", "-sN", "--max-time", "4", slow.url("/api/live/matches/" + mid)],
                         capture_output=True, text=True, timeout=20)
    events = sse_events(out.stdout)
    assert events and events[0][0] == "match" and '"withheld":true' in events[0][1], out.stdout[:300]
    assert not [e for e, _ in events if e in ("hand", "action", "hand_end")], out.stdout[:300]
    assert not cards_in(out.stdout.replace(mid, "")), out.stdout[:300]  # (T1-1 is no card)

    # 200 streams at once (from 13 loopback networks: 16 per /24 is the cap),
    # and the pages still answer.
    socks = []
    try:
        for i in range(200):
            s = socket.socket()
            s.bind(("127.0.%d.1" % (2 + i // 16), 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", slow.http_port))
            s.sendall(b"GET /api/live HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
            socks.append(s)
        for s in socks:
            head = s.recv(4096)
            assert head.startswith(b"HTTP/1.1 200"), head[:100]
        t0 = time.time()
        status, body, _ = slow.get("/api/status", timeout=10)
        assert status == 200 and json.loads(body)["referees_total"] >= 1
        status, body, _ = slow.get("/", timeout=10)
        assert status == 200 and b"<main" in body
        assert time.time() - t0 < 10
        # The 17th stream from one network is refused, from another address of it too.
        extra = socket.socket()
        extra.bind(("127.0.2.9", 0))
        extra.settimeout(10)
        extra.connect(("127.0.0.1", slow.http_port))
        extra.sendall(b"GET /api/live HTTP/1.1\r\nHost: t\r\n\r\n")
        assert extra.recv(4096).startswith(b"HTTP/1.1 503")
        extra.close()
    finally:
        for s in socks:
            s.close()


def test_a_tournament_waits_for_a_benched_bot(start_stack, browser):
    stack = start_stack(bots=[(n, "tarock-bot-random", ["--seed", str(i + 1)], "arena")
                              for i, n in enumerate(["ra", "rb", "rc"])],
                        max_parallel=2, variants=["slovenian-3p"], arena_args=["--dial_in_wait_s", "10"])
    # A bot nobody listens for: the tournament waits 10 s for it, says so, then
    # fails its matches with the reason; the others are charged nothing.
    stack.add_bot("ghost", "127.0.0.1:%d" % free_port())
    stack.cli("tournament", "run", "--variant", "slovenian-3p", "--bots", "ra,rb,ghost", "--deals", "1",
              "--hands", "3")
    tid = stack.api("/api/tournaments")["tournaments"][0]["id"]
    note = stack.wait_for(lambda: stack.api("/api/tournaments/%s" % tid).get("waiting"), timeout=30,
                          what="the tournament to say it waits")
    assert "ghost" in note[0] and "until" in note[0] and "UTC" in note[0], note
    assert "waiting: " in stack.cli("tournament", "show", tid)
    browser.get(stack.url("/tournaments/%s" % tid))
    wait_until(browser, lambda d: "ghost" in d.find_element("id", "tournament-waiting").text, timeout=10,
               what="the waiting notice")
    t = stack.wait_for(lambda: (lambda t: t if t["finished"] else None)(stack.api("/api/tournaments/%s" % tid)),
                       timeout=60, what="the tournament to end")
    assert t["matches_failed"] == t["matches_total"] == 3, t
    for m in stack.api("/api/matches?tournament=%s&limit=10" % tid)["matches"]:
        assert m["status"] == "failed" and "ghost" in m["error"] and "waited 10 s" in m["error"], m["error"]
    for name in ("ra", "rb"):
        bot = stack.api("/api/bots/" + name)
        assert all(int(r.get("matches", 0)) == 0 for r in bot.get("ratings", [])), bot

    # A bot that comes up while the tournament waits: every match is played.
    port = free_port()
    stack.add_bot("phoenix", "127.0.0.1:%d" % port)
    stack.cli("tournament", "run", "--variant", "slovenian-3p", "--bots", "ra,rb,phoenix", "--deals", "1",
              "--hands", "3")
    tid = stack.api("/api/tournaments")["tournaments"][0]["id"]
    stack.wait_for(lambda: stack.api("/api/tournaments/%s" % tid).get("waiting"), timeout=30,
                   what="the tournament to wait for phoenix")
    stack._start("bot-phoenix", [os.path.join(BIN, "tarock-bot-random"), "--listen", "127.0.0.1:%d" % port],
                 port)
    t = stack.wait_for(lambda: (lambda t: t if t["finished"] else None)(stack.api("/api/tournaments/%s" % tid)),
                       timeout=60, what="the tournament to end")
    assert t["matches_done"] == t["matches_total"] == 3 and t["matches_failed"] == 0, t
