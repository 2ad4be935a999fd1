"""The live view's cost on the browser's main thread (issue 48), measured in
headless Chromium against a real arena (conftest.py's stack: tarock-referee,
bot processes, tarock-arena on loopback).

A ladder plays one single-table slovenian-4p match of HANDS hands (heuristic,
heuristic-b, random-a, random-b); the match's page is opened as soon as the
match runs and watched to its end. Chromium's own accounting (DevTools
Performance.getMetrics: TaskDuration, the time the page's main thread spent in
tasks: script, style, layout, paint) is read at the first event seen and
again at the last, and divided by the events the page received in between
(window.tarock.liveState.count). Also: the longest task while the events came
(PerformanceObserver "longtask", which sees tasks over 50 ms; tasks that ended
before the first event, the page's own load, left out) and the JS heap at both
ends.

    TAROCK_BUILD_DIR=build python3 tests/web/live_bench.py --hands 480 --runs 3

The web test (test_site.py) runs measure() on a short match with a generous
bound; docs/benchmarks.md ("The live view in the browser") has the figures.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

BOTS = [
    ("heuristic", "tarock-bot-heuristic", [], "arena"),
    ("heuristic-b", "tarock-bot-heuristic", [], "arena"),
    ("random-a", "tarock-bot-random", ["--seed", "1"], "arena"),
    ("random-b", "tarock-bot-random", ["--seed", "2"], "arena"),
]

# Records every task over 50 ms on each page (window.__longTasks).
LONGTASKS = """
window.__longTasks = [];
try {
  new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__longTasks.push([e.startTime, e.duration])))
    .observe({ entryTypes: ['longtask'] });
} catch (e) { /* not supported */ }
"""

SAMPLE = """
  const s = window.tarock && window.tarock.liveState;
  return { count: s ? (s.count !== undefined ? s.count : s.events.length) : 0, ended: !!(s && s.ended),
           heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
           // The longest task since the first live event (the page's own load before it is not the live view's).
           longest: Math.max(0, ...(window.__longTasks || []).filter((t) => !s || !s.first || t[0] + t[1] >= s.first).map((t) => t[1])) };"""


class MissedMatch(RuntimeError):
    """The match was over before the page could watch it (a fast match on a busy machine)."""


def metrics(browser):
    out = browser.execute_cdp_cmd("Performance.getMetrics", {})
    return {m["name"]: m["value"] for m in out["metrics"]}


def measure(stack, browser, hands, timeout=600):
    """Watches one live match of `hands` hands to its end; returns the figures."""
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LONGTASKS})
    browser.execute_cdp_cmd("Performance.enable", {"timeDomain": "threadTicks"})
    before = {m["id"] for m in stack.api("/api/matches?limit=200").get("matches", [])}
    stack.cli("ladder", "start", "--variant", "slovenian-4p", "--format", "match", "--hands", str(hands),
              "--max_matches", "1")

    def made():  # pending or running: the page waits for it to start
        r = stack.api("/api/matches?limit=5").get("matches", [])
        return next((m["id"] for m in r if m["id"] not in before), None)
    mid = stack.wait_for(made, timeout=60, what="the match to be made")
    # From before the page's load (a script-less page of the same origin, so
    # the same renderer: its first render is included, tens of ms against
    # thousands of events) to the last sample before the match ended (or the
    # first after, when the page was too busy to be sampled before: then the
    # record's first render, 300 ms later, may be in it too).
    browser.get(stack.url("/static/favicon.svg"))
    m0 = metrics(browser)
    first = {"count": 0, "longest": 0, "heap": 0}
    browser.get(stack.url("/matches/" + mid))
    first["heap"] = browser.execute_script("return performance.memory ? performance.memory.usedJSHeapSize : 0")
    last, m1 = first, m0
    deadline = time.time() + timeout
    while time.time() < deadline:
        # The sample first: a busy page answers it late, and the metrics read
        # after it then hold all the work it had queued.
        s = browser.execute_script(SAMPLE)
        m = metrics(browser)
        if s["ended"]:
            if last is first:
                last, m1 = s, m
            break
        last, m1 = s, m
        time.sleep(0.5)
    if last["count"] - first["count"] < 4 * hands:
        # A page that connected late (a busy machine) watched only the match's
        # end: too few events to measure the cost of one; watch another match.
        raise MissedMatch("the page saw only %d events of %s (connected late?): %s"
                          % (last["count"] - first["count"], mid, last))
    events = last["count"] - first["count"]
    stack.wait_for(lambda: not any(l["running"] for l in stack.api("/api/ladders").get("ladders", [])),
                   timeout=30, what="the ladder to stop after its match")
    return {
        "match": mid, "hands": hands, "events": events,
        "task_s": m1["TaskDuration"] - m0["TaskDuration"],
        "task_ms_per_event": 1000 * (m1["TaskDuration"] - m0["TaskDuration"]) / max(1, events),
        "script_ms_per_event": 1000 * (m1["ScriptDuration"] - m0["ScriptDuration"]) / max(1, events),
        "layout_style_ms_per_event": 1000 * (m1["LayoutDuration"] + m1["RecalcStyleDuration"] -
                                             m0["LayoutDuration"] - m0["RecalcStyleDuration"]) / max(1, events),
        "longest_task_ms": last["longest"],
        "heap_mb": [round(first["heap"] / 2**20, 1), round(last["heap"] / 2**20, 1)],
        "nodes": m1.get("Nodes"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=480)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    import shutil
    import tempfile
    import conftest
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix="tarock-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = conftest._chromium()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              "--window-size=1366,900", "--user-data-dir=" + profile):
        opts.add_argument(a)
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts)
    browser.set_script_timeout(900)  # a page that cannot keep up answers late, not never
    runs = []
    try:
        with conftest.ArenaStack(bots=BOTS, max_parallel=1, variants=["slovenian-4p"]) as stack:
            for _ in range(args.runs):
                r = measure(stack, browser, args.hands)
                print(json.dumps(r), flush=True)
                runs.append(r)
                browser.get("about:blank")
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
    for key in ("task_ms_per_event", "script_ms_per_event", "layout_style_ms_per_event", "longest_task_ms", "events"):
        print("median %s: %.3f" % (key, statistics.median(r[key] for r in runs)))


if __name__ == "__main__":
    main()
