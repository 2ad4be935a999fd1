"""The checks of tests/sealed_slot_test.sh (which starts the processes).

Usage: check.py [slot|end_one|after_restart], with TAROCK_TEST_TMP and
TAROCK_HTTP set; the arena runs a
duplicate ladder (bridge sets of two tables) with --max_parallel 2, every
table held by its bots until the test opens its gate. Prints what failed and
exits non-zero.
"""
import json
import os
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request

TMP = os.environ["TAROCK_TEST_TMP"]
HTTP = "http://" + os.environ["TAROCK_HTTP"]
GATES = os.path.join(TMP, "gates")
DB = os.path.join(TMP, "arena", "arena.db")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def get(path):
    with urllib.request.urlopen(HTTP + path, timeout=10) as r:
        return json.loads(r.read())


def wait(pred, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    check(False, f"timed out waiting for {what}")
    return False


def stored(match_id):
    """(status, seed) as the database has them: the truth, not public."""
    with sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=10) as db:
        row = db.execute("SELECT status, seed FROM matches WHERE id = ?", (match_id,)).fetchone()
    return row or ("", 0)


def public():
    """What anyone sees that would move when a match starts or a set is made."""
    st = get("/api/status")
    with urllib.request.urlopen(HTTP + "/metrics", timeout=10) as r:
        metrics = r.read().decode()
    gauges = {l.split(" ")[0]: float(l.split(" ")[1]) for l in metrics.splitlines()
              if l.startswith(("tarock_arena_matches_running ", "tarock_arena_queue_depth "))}
    return {"running": int(st.get("running", 0)), "queue": int(st.get("queue_depth", 0)),
            "matches": int(get("/api/matches?limit=1").get("total", 0)), **gauges}


def follow(feed):
    try:
        with urllib.request.urlopen(HTTP + "/api/live", timeout=120) as r:
            event = ""
            for raw in r:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    feed.append((time.time(), event, line[5:].strip()))
    except (OSError, urllib.error.URLError):
        pass


def twin_ends(feed, a, b):
    """Lets b (a's twin) end: both 'finished' on the feed, before the next
    set's two tables start."""
    opened = time.time()
    open(os.path.join(GATES, b), "w").close()
    wait(lambda: sum(e == "started" and t > opened for t, e, d in feed) >= 2, 60,
         "the next two tables to start once the deal is public")
    finished = [t for t, e, d in feed if e == "finished" and (a in d or b in d)]
    first_start = min([t for t, e, d in feed if e == "started" and t > opened] or [0])
    check(len(finished) == 2 and max(finished) <= first_start,
          f"the set's 'finished' came after the next start or not at all: {finished} {first_start}")


def slot():
    """One table ends while its twin is held: nothing public moves."""
    feed = []
    threading.Thread(target=follow, args=(feed,), daemon=True).start()
    if not wait(lambda: public()["running"] == 2 and public()["queue"] == 2, 60,
                "two tables held, two queued"):
        return
    running = sorted(m["id"] for m in get("/api/matches?status=running")["matches"])
    a, b = running
    check(stored(a)[1] == stored(b)[1] and stored(a)[1] != 0,
          f"the running tables {a} and {b} are not one set's")
    before = public()
    check(before.get("tarock_arena_matches_running") == 2 and before.get("tarock_arena_queue_depth") == 2,
          f"the gauges before: {before}")
    opened = time.time()
    open(os.path.join(GATES, a), "w").close()
    wait(lambda: stored(a)[0] == "done", 60, f"{a} to finish (the database)")
    # A next match starts within milliseconds when a slot frees.
    time.sleep(1.5)
    started = [d for t, e, d in feed if e == "started" and t > opened]
    check(not started, f"/api/live 'started' after {a} ended while {b} plays its deal: {started}")
    after = public()
    check(after == before, f"what the public sees moved when {a} ended: {before} -> {after}")
    check(get(f"/api/matches/{a}")["status"] == "running", f"{a} is not shown running")
    # The twin ends: the deal is public, both slots free, the next set starts.
    twin_ends(feed, a, b)


def end_one():
    """Before a restart: one table of the running set ends (its id and its
    twin's to the file 'restart')."""
    if not wait(lambda: public()["running"] == 2 and public()["queue"] == 2, 60,
                "two tables held, two queued"):
        return
    a, b = sorted(m["id"] for m in get("/api/matches?status=running")["matches"])
    open(os.path.join(GATES, a), "w").close()
    wait(lambda: stored(a)[0] == "done", 60, f"{a} to finish (the database)")
    with open(os.path.join(TMP, "restart"), "w") as f:
        json.dump({"ended": a, "twin": b, "public": public()}, f)


def after_restart():
    """The arena restarted with one table ended and its twin unfinished: the
    two look alike (running, no attempts nor referee, both on the live feed),
    nothing else starts and the counts are those of before; the twin ends:
    both 'finished', then the next set."""
    with open(os.path.join(TMP, "restart")) as f:
        saved = json.load(f)
    a, b = saved["ended"], saved["twin"]
    feed = []
    threading.Thread(target=follow, args=(feed,), daemon=True).start()

    def live_ids():
        listed = [json.loads(d) for t, e, d in list(feed) if e == "running"]
        return {m["id"] for m in (listed[0] if listed else [])} | {
            json.loads(d)["id"] for t, e, d in list(feed) if e == "started"}

    def started_ms(m):
        listed = [json.loads(d) for t, e, d in list(feed) if e == "running"]
        heads = (listed[0] if listed else []) + [
            json.loads(d) for t, e, d in list(feed) if e == "started"]
        return [h.get("started_ms") for h in heads if h["id"] == m][-1:]

    wait(lambda: b in live_ids(), 60, f"{b} to run again")
    time.sleep(1.5)
    started = [d for t, e, d in feed if e == "started" and a not in d and b not in d]
    check(not started, f"/api/live 'started' beside the sealed set after the restart: {started}")
    check(a in live_ids() and b in live_ids(),
          f"the live feed's running tables after the restart: {sorted(live_ids())}")
    check(started_ms(a) == started_ms(b), f"{a} and {b} begun apart: {started_ms(a)} {started_ms(b)}")
    check(public() == saved["public"],
          f"what the public sees differs after the restart: {saved['public']} -> {public()}")
    for m in (a, b):
        shown = get(f"/api/matches/{m}")
        check(shown["status"] == "running", f"{m} is {shown['status']} after the restart")
        check(not shown.get("attempts") and not shown.get("referee"),
              f"{m}'s attempts or referee shown before the deal is public: {shown.get('attempts')}, "
              f"{shown.get('referee')}")
    twin_ends(feed, a, b)
    check(get(f"/api/matches/{a}").get("attempts") == 1, f"{a}'s attempts once public")


{"slot": slot, "end_one": end_one, "after_restart": after_restart}[
    sys.argv[1] if len(sys.argv) > 1 else "slot"]()
print(f"{len(failures)} failures")
raise SystemExit(1 if failures else 0)
