"""The checks of tests/secret_deals_test.sh (which starts the processes).

Usage: check.py BUILD_PYTHON_DIR, with TAROCK_TEST_TMP, TAROCK_BIN,
TAROCK_HTTP and TAROCK_GRPC set. Prints what failed and exits non-zero.
"""
import hashlib
import hmac
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
from tarock_bot._generated import arena_pb2, tarock_pb2  # noqa: E402

TMP = os.environ["TAROCK_TEST_TMP"]
BIN = os.environ["TAROCK_BIN"]
HTTP = "http://" + os.environ["TAROCK_HTTP"]
GRPC = os.environ["TAROCK_GRPC"]
failures = []
M64 = (1 << 64) - 1


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def get(path):
    try:
        with urllib.request.urlopen(HTTP + path, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def play_cookie():
    """A new play cookie, as a browser gets it (issue 29: POST /api/play needs one)."""
    with urllib.request.urlopen(HTTP + "/api/play/variants", timeout=10) as r:
        return r.headers["Set-Cookie"].split(";")[0]


COOKIE = None


def post(path, body, cookie=None):
    global COOKIE
    if cookie is None:
        COOKIE = COOKIE or play_cookie()
        cookie = COOKIE
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    req = urllib.request.Request(HTTP + path, data=json.dumps(body).encode(), method="POST",
                                 headers=headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def refused(path, body, cookie):
    """(status, body) of a POST that must be refused."""
    try:
        post(path, body, cookie)
        return 200, None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def cli(*args):
    return subprocess.run([BIN + "/tarock-arena-cli", "--arena", GRPC, *args], check=True,
                          capture_output=True, text=True, timeout=30).stdout


def wait(pred, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    check(False, "timed out waiting for " + what)
    return None


def deal_of_each_line(lines, record):
    """[(line, deal)] for the spy's hand_start and decision lines of one match.

    A void deal (a hand without tarocks, thrown_in=redeal) is dealt again
    under the same hand index, so the record can hold two deals of one index:
    the k-th HandStart of hand i is the k-th deal of index i in the record, and
    a decision belongs to the HandStart before it.
    """
    out, seen, deal = [], {}, None
    for line in lines:
        if line["kind"] == "hand_start":
            i = line["hand_index"]
            k = seen.get(i, 0)
            seen[i] = k + 1
            same = [d for d in record["deals"] if d["hand_index"] == i]
            deal = same[k] if k < len(same) else None
            check(deal is not None, f"{line['match']}: HandStart {k + 1} of hand {i} is not in the record")
        if line["kind"] in ("hand_start", "decision") and deal is not None:
            check(deal["hand_index"] == line["hand_index"],
                  f"{line['match']}: a decision of hand {line['hand_index']} before its HandStart")
            out.append((line, deal))
    return out


def split_mix(state):
    state = (state + 0x9E3779B97F4A7C15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def hand_seed(match_seed, k):  # referee/engine/random.h HandSeed
    return split_mix(match_seed ^ ((0xD1B54A32D192ED03 * (k + 1)) & M64))


def deal_seed(match_seed, salt, hand, attempt):  # referee/engine/deal_seed.h DealSeed
    key = f"tarock-deal:v2:{match_seed}:{salt}".encode()
    return int.from_bytes(hmac.new(key, f"{hand}:{attempt}".encode(), hashlib.sha256).digest()[:8], "big")


channel = grpc.insecure_channel(GRPC)
get_match = channel.unary_unary("/tarock.v1.Arena/GetMatch",
                                request_serializer=arena_pb2.GetMatchRequest.SerializeToString,
                                response_deserializer=arena_pb2.ArenaMatch.FromString)
export = channel.unary_stream("/tarock.v1.Arena/ExportRecords",
                              request_serializer=arena_pb2.ExportRecordsRequest.SerializeToString,
                              response_deserializer=arena_pb2.ExportedRecord.FromString)
seen_public = []  # every API answer served while some deal was secret


def sealed(m, where):
    """A match whose deal is not public: nothing but the commitment."""
    seen_public.append(json.dumps(m))
    ok = check(str(m.get("seed", "0")) == "0", f"{where}: seed {m.get('seed')} served early")
    ok &= check(not m.get("seed_salt"), f"{where}: salt served early")
    ok &= check(not m.get("deal_public"), f"{where}: deal_public early")
    ok &= check(m.get("record") in (None, {}) and not m.get("record_json"), f"{where}: record early")
    ok &= check(re.fullmatch("[0-9a-f]{64}", m.get("seed_commitment", "")) is not None,
                f"{where}: no commitment")
    return ok


def opened(m, where):
    """A finished deal: the seed opens the commitment and reproduces the deal."""
    seed = int(m["seed"])
    check(m.get("deal_public") is True, f"{where}: not public after every table finished")
    text = f"tarock-seed:v1:{seed}:{m['seed_salt']}"
    check(hashlib.sha256(text.encode()).hexdigest() == m["seed_commitment"],
          f"{where}: seed and salt do not open the commitment")
    record = m["record"]
    check(record["seed"] == seed, f"{where}: record seed {record['seed']} != published {seed}")
    d = record["deals"][0]
    check(record.get("seed_salt") == m["seed_salt"], f"{where}: the record's salt is not the published one")
    check(d["seed"] == deal_seed(seed, m["seed_salt"], d["hand_index"], 0),
          f"{where}: hand 0's seed is not DealSeed of the published seed and salt")
    out = subprocess.run([BIN + "/tarock", "deal", "--variant", m["variant"], "--seed", str(d["seed"]),
                          "--dealer", str(d["dealer"])], capture_output=True, text=True, check=True)
    dealt = json.loads(out.stdout)
    check(dealt["hands"] == d["hands"] and dealt["talon"] == d["talon"],
          f"{where}: `tarock deal` with the published seed does not reproduce the deal")
    return seed


def sse_events(path, seconds, into=None):
    """[(time, event, data)] of an event stream (text/event-stream) read for
    `seconds` (appended to `into` as they come, when given)."""
    out = into if into is not None else []
    deadline = time.time() + seconds
    try:
        with urllib.request.urlopen(HTTP + path, timeout=max(1.0, seconds)) as r:
            event = ""
            while time.time() < deadline:
                line = r.readline().decode("utf-8", "replace")
                if not line:
                    break
                line = line.rstrip("\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    out.append((time.time(), event, line[5:].strip()))
                elif not line:
                    event = ""
    except (OSError, urllib.error.URLError):
        pass  # the read timed out: what came so far
    return out


# The live feed, followed from before the tournament starts: when it says a
# table "finished" is when the public learns that it ended.
feed = []
threading.Thread(target=sse_events, args=("/api/live", 400, feed), daemon=True).start()
time.sleep(0.5)
DB = os.path.join(TMP, "arena", "arena.db")


def stored_status(tid):
    """The truth (the arena's database, read only): status by match id."""
    db = sqlite3.connect(f"file:{DB}?mode=ro", uri=True, timeout=10)
    try:
        return dict(db.execute("SELECT id, status FROM matches WHERE tournament_id = ?", (int(tid),)))
    finally:
        db.close()


def health_since():
    return {b["name"]: b.get("health_since", "") for b in get("/api/bots")[1].get("bots", [])}


since_before = health_since()
# --- 1. A duplicate tournament: one deal at four tables, one after another.
out = cli("--json", "tournament", "run", "--variant=slovenian-4p", "--bots=spy,r1,r2,r3", "--deals=1",
          "--hands=4")
tid = json.loads(out)["id"]


def tournament_matches():
    return get(f"/api/matches?tournament={tid}&limit=10")[1]["matches"]


# The spy holds up the second table at its first decision: one table done (in
# the database; the public sees it running until every table has finished).
wait(lambda: any(json.loads(l)["kind"] == "decision" and json.loads(l)["match"] != first
                 for l in open(os.path.join(TMP, "spy.jsonl")))
     if (first := next((i for i, st in stored_status(tid).items() if st == "done"), None)) else None,
     90, "the first table to finish and the spy to hold up the second")
ms = tournament_matches()
check(len(ms) == 4, f"{len(ms)} tournament matches, not 4")
check(sum(st == "done" for st in stored_status(tid).values()) == 1,
      "not exactly one table done while the spy waits")
commitments = {m["seed_commitment"] for m in ms}
check(len(commitments) == 1, "the tables of one deal do not share one commitment")
for m in ms:
    sealed(m, f"/api/matches list {m['id']}")
    status, one = get(f"/api/matches/{m['id']}")
    sealed(one, f"/api/matches/{m['id']}")
    status, _ = get(f"/api/matches/{m['id']}/hands/0/replay")
    check(status == 404, f"replay of {m['id']} served while the deal is played elsewhere ({status})")
    g = get_match(arena_pb2.GetMatchRequest(id=m["id"], with_record=True), timeout=10)
    check(g.seed == 0 and not g.record_json and not g.seed_salt and not g.deal_public,
          f"gRPC GetMatch {m['id']} gave the deal away")
    seen_public.append(str(g))
exported = [json.loads(r.json_line) for r in export(arena_pb2.ExportRecordsRequest(), timeout=10)]
check(not any(str(r.get("match_id", "")).startswith(f"T{tid}-") for r in exported),
      "ExportRecords gave a table's record while another still plays its deal")
seen_public.extend(json.dumps(r) for r in exported)


# --- 1b. Every public route while one table's deal is still played at
# another (issues 44 item 7 and 48 item 3): the finished table's cards, fault
# details, totals, places, faults and hands played are sealed with its deal.
# The spy's first tournament table holds a fault whose detail is its hand.
done_id = next(i for i, st in stored_status(tid).items() if st == "done")
SRC = os.environ["TAROCK_SRC"]


def no_result(m, where):
    seen_public.append(json.dumps(m))
    check(int(m.get("hands") or 0) == 0, f"{where}: hands played shown before the deal is public")
    # When and how it ended tell how it went too (issue 44, review of
    # 2026-11-29): its duration, end time, place in the completion order, error.
    for field in ("duration_s", "finished_at", "seq", "error"):
        check(m.get(field) in (None, 0, "0", "", 0.0),
              f"{where}: {field}={m.get(field)!r} before the deal is public")
    for s in m.get("seats", []):
        for field in ("total", "rank", "faults", "forfeited"):
            check(s.get(field) in (None, 0, "0", False),
                  f"{where}: seat {s.get('seat')} {field}={s.get(field)} before the deal is public")


def no_marker(text, where):
    seen_public.append(text)
    check("LEAK-MARKER" not in text, f"{where}: a sealed table's fault detail (the spy's hand) is served")


# The HTTP routes (GET), each with its URLs; a route added to the server and
# not here fails the coverage check below.
http_routes = {
    "/api/matches": ["/api/matches", f"/api/matches?tournament={tid}", "/api/matches?bot=spy",
                     "/api/matches?status=done", "/api/matches?kind=tournament&limit=1000"],
    "/api/matches/([A-Za-z0-9_.-]+)": [f"/api/matches/{done_id}"],
    "/api/matches/([A-Za-z0-9_.-]+)/hands/([0-9]+)/replay": [f"/api/matches/{done_id}/hands/0/replay"],
    "/api/matches/([A-Za-z0-9_.-]+)/stderr": [f"/api/matches/{done_id}/stderr?bot=spy"],
    "/api/tournaments": ["/api/tournaments"],
    "/api/tournaments/([0-9]+)": [f"/api/tournaments/{tid}"],
    "/api/tests": ["/api/tests"],
    "/api/tests/([0-9]+)": ["/api/tests/1?path=1"],
    "/api/ladders": ["/api/ladders"],
    "/api/leaderboard": ["/api/leaderboard?variant=slovenian-4p"],
    "/api/bots": ["/api/bots"],
    "/api/bots/([A-Za-z0-9_.-]+)": ["/api/bots/spy"],
    "/api/bots/([A-Za-z0-9_.-]+)/stats": ["/api/bots/spy/stats", "/api/bots/r1/stats"],
    "/api/bots/([A-Za-z0-9_.-]+)/faults": ["/api/bots/spy/faults"],
    "/api/bots/([A-Za-z0-9_.-]+)/versions": ["/api/bots/spy/versions"],
    "/api/events": ["/api/events"],
    "/api/events/([a-z0-9-]+)": ["/api/events/open"],
    "/api/events/([a-z0-9-]+)/roster": ["/api/events/open/roster"],
    "/api/events/([a-z0-9-]+)/export": ["/api/events/open/export"],
    "/api/status": ["/api/status"],
    "/metrics": ["/metrics"],  # ServeMetrics
    "/api/play/variants": ["/api/play/variants"],
    "/api/play/([^/]+)": ["/api/play/nosuch"],
    "/docs/([A-Za-z0-9_.-]+)": ["/docs/security.md"],  # the documents, built in
    "/static/(.+)": [], "/play": [], "/play/": [], "/play/([^/]+)": [],  # files and page shells
    "/bots/([^/]+)": ["/bots/spy"], "/events/([^/]+)": [], "/ladders/([0-9]+)": [],
    "/matches/([^/]+)": [f"/matches/{done_id}"],
    # event streams (live_hub.h): a duplicate table runs with public_events off, so
    # its stream carries no play (not read here: a stream does not end)
    "/api/live/matches/([A-Za-z0-9_.-]+)": [], "/api/live": [],
}
registered = set()
sources = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(SRC, "arena")) for f in fs
           if f.endswith(".cc") and not f.endswith("_test.cc")]
for full in sources:
    text = open(full).read()
    for raw, plain in re.findall(r'server->Get(?:Stream)?\(\s*(?:R"\((.*?)\)"|"([^"]*)")', text):
        registered.add(raw or plain)
    for block in re.findall(r'for \(const char\* path : \{([^}]*)\}', text):
        registered |= set(re.findall(r'"([^"]+)"', block))
shells = {"/", "/index.html", "/leaderboard", "/leaderboard/([A-Za-z0-9_.-]+)", "/matches", "/bots",
          "/tournaments", "/tournaments/([0-9]+)", "/tests", "/tests/([0-9]+)", "/ladders", "/events",
          "/join", "/join/([A-Za-z0-9]+)"}
registered.add("/metrics")
check(len(registered) > 20, f"found only {len(registered)} routes in the sources")
for route in sorted(registered - set(http_routes) - shells):
    check(False, f"the public route {route} is not in the sealed-deal check (add it to http_routes)")
for route, urls in http_routes.items():
    for url in urls:
        try:
            with urllib.request.urlopen(HTTP + url, timeout=10) as r:
                body = r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
        no_marker(body, url)
        try:
            j = json.loads(body)
        except ValueError:
            continue
        if route == "/api/matches":
            for m in j.get("matches", []):
                if m["id"] == done_id:
                    no_result(m, url)
        if route == "/api/matches/([A-Za-z0-9_.-]+)":
            no_result(j, url)
        if route == "/api/tournaments/([0-9]+)":
            check(not j.get("standings"), f"{url}: standings from a table whose deal is still played")
        if route == "/api/bots/([A-Za-z0-9_.-]+)/stats":
            check(not any(int(v.get("matches", 0)) for v in j.get("variants", [])),
                  f"{url}: statistics count a table whose deal is still played")
        if route == "/api/bots/([A-Za-z0-9_.-]+)/faults":
            check(not j.get("faults"), f"{url}: faults of a table whose deal is still played")
# gRPC: every read of the Arena service (the others need a token or write).
grpc_reads = {"GetMatch", "ListMatches", "ExportRecords", "GetTournament", "Leaderboard",
              "ListBots", "GetBot", "ListLadders", "Status", "GetTest", "ListTests", "ListEvents", "GetEvent"}
proto = open(os.path.join(SRC, "proto/tarock/v1/arena.proto")).read()
service = proto[proto.index("service Arena "):]
service = service[:service.index("\n}")]
rpcs = set(re.findall(r"rpc (\w+)\(", service))
writes = {"AddBot", "UpdateBot", "RetireBot", "StartLadder", "StopLadder", "RunTournament", "StartTest",
          "StopTest", "ListAudit", "CreateEvent", "JoinEvent", "EventRoster", "RegisterRoster",
          "ReissueEntrantToken", "EnterHouseBot", "WithdrawBot", "ExportEvent", "CloseEvent"}
for rpc in sorted(rpcs - grpc_reads - writes):
    check(False, f"the Arena rpc {rpc} is not in the sealed-deal check")


def unary(name, req, resp):
    return channel.unary_unary(f"/tarock.v1.Arena/{name}", request_serializer=req.SerializeToString,
                               response_deserializer=resp.FromString)


def grpc_read(name, request, response_type):
    try:
        return unary(name, request, response_type)(request, timeout=10)
    except grpc.RpcError as e:
        return None


g = grpc_read("GetMatch", arena_pb2.GetMatchRequest(id=done_id, with_record=True), arena_pb2.ArenaMatch)
check(g is not None and g.hands == 0 and not any(s.total or s.rank or s.faults or s.forfeited for s in g.seats),
      "gRPC GetMatch gave a sealed table's result")
check(g is not None and g.status == "running" and not (g.duration_s or g.finished_at or g.seq or g.error),
      f"gRPC GetMatch gave a sealed table's end: {g and (g.duration_s, g.finished_at, g.seq, g.error)}")
lm = grpc_read("ListMatches", arena_pb2.ListMatchesRequest(tournament_id=int(tid)), arena_pb2.ListMatchesResponse)
check(lm is not None and not any(s.total or s.rank or s.faults for m in lm.matches for s in m.seats),
      "gRPC ListMatches gave a sealed table's result")
check(lm is not None and not any(m.duration_s or m.finished_at or m.seq or m.error or m.hands for m in lm.matches),
      "gRPC ListMatches gave a sealed table's end (duration, end time, completion order, error, hands)")


def played_metrics():
    """The /metrics lines that count a table's hands played and its duration."""
    with urllib.request.urlopen(HTTP + "/metrics", timeout=10) as r:
        return [l for l in r.read().decode().splitlines()
                if re.match(r'tarock_arena_hands_total\{outcome="played"|tarock_arena_match_duration_seconds_count\{', l)
                and not l.endswith(" 0")]


check(not played_metrics(), f"/metrics counts a sealed table's hands or duration: {played_metrics()}")

gt = grpc_read("GetTournament", arena_pb2.GetTournamentRequest(id=int(tid)), arena_pb2.TournamentInfo)
check(gt is not None and not gt.standings, "gRPC GetTournament gave standings of a sealed table")
for name, req, resp in (("GetTest", arena_pb2.GetTestRequest(id=1), arena_pb2.TestInfo),
                        ("ListBots", arena_pb2.ListBotsRequest(), arena_pb2.ListBotsResponse),
                        ("GetBot", arena_pb2.GetBotRequest(name="spy"), arena_pb2.BotInfo),
                        ("ListLadders", arena_pb2.ListLaddersRequest(), arena_pb2.ListLaddersResponse),
                        ("Status", arena_pb2.StatusRequest(), arena_pb2.StatusResponse),
                        ("ListTests", arena_pb2.ListTestsRequest(), arena_pb2.ListTestsResponse),
                        ("ListEvents", arena_pb2.ListEventsRequest(), arena_pb2.ListEventsResponse),
                        ("GetEvent", arena_pb2.GetEventRequest(slug="open"), arena_pb2.EventInfo),
                        ("Leaderboard", arena_pb2.LeaderboardRequest(variant="slovenian-4p"),
                         arena_pb2.LeaderboardResponse)):
    r = grpc_read(name, req, resp)
    if r is not None:
        no_marker(str(r), f"gRPC {name}")



# --- 1c. That it ended, and when, is sealed too (issue 44, review of
# 2026-11-29): the finished table is shown as running on every public route
# (status, lists and their filters, counts, tournament progress, the live
# feed and its stream, /metrics' counts, running gauge and the referee
# client's RunMatch metrics) until its deal is public.
def runmatch_metrics(text):
    return [l for l in text.splitlines()
            if re.match(r'grpc_client_(handled_total|handling_seconds_count)\{.*grpc_method="RunMatch"', l)
            and not l.endswith(" 0")]


def metric(text, name):
    """The sum of the series of `name` (a prefix up to its labels) in /metrics."""
    return sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines()
               if l.startswith(name) and l[len(name):len(name) + 1] in ("{", " ", ","))


def end_leaks():
    found = []
    for url in (f"/api/matches?tournament={tid}", "/api/matches", "/api/matches?bot=spy",
                "/api/matches?kind=tournament&limit=1000"):
        for m in get(url)[1].get("matches", []):
            if m["id"] == done_id and m["status"] != "running":
                found.append(f"{url}: {done_id} is {m['status']}")
    one = get(f"/api/matches/{done_id}")[1]
    if one.get("status") != "running":
        found.append(f"/api/matches/{done_id}: {one.get('status')}")
    if any(s.get("version_id") not in (None, 0, "0") for s in one.get("seats", [])):
        found.append(f"/api/matches/{done_id}: a seat's hosted version (stored at the end)")
    for status in ("done", "failed"):
        page = get(f"/api/matches?status={status}&tournament={tid}")[1]
        if int(page.get("total", 0)) or page.get("matches"):
            found.append(f"/api/matches?status={status}: total {page.get('total')}")
        lm = grpc_read("ListMatches", arena_pb2.ListMatchesRequest(status=status),
                       arena_pb2.ListMatchesResponse)
        if lm is None or lm.total or lm.matches:
            found.append(f"gRPC ListMatches status={status}")
    # Pending means not started: its total is the tables listed as pending (the
    # store has a table in flight as pending too: counting those, the total
    # fell by one when a sealed table ended; red team of 2026-11-29).
    for url in (f"/api/matches?status=pending&tournament={tid}&limit=1000",
                "/api/matches?status=pending&bot=spy&limit=1000", "/api/matches?status=pending&limit=1000"):
        page = get(url)[1]
        listed = [m for m in page.get("matches", []) if m.get("status") == "pending"]
        if int(page.get("total", 0)) != len(listed) or done_id in [m["id"] for m in listed]:
            found.append(f"{url}: total {page.get('total')}, {len(listed)} listed")
    lm = grpc_read("ListMatches", arena_pb2.ListMatchesRequest(status="pending", bot="spy", limit=1000),
                   arena_pb2.ListMatchesResponse)
    if lm is None or lm.total != len(lm.matches):
        found.append(f"gRPC ListMatches status=pending: total {lm and lm.total}, {lm and len(lm.matches)} listed")
    running = get("/api/matches?status=running")[1]
    if done_id not in [m["id"] for m in running.get("matches", [])]:
        found.append(f"/api/matches?status=running does not list {done_id}")
    lm = grpc_read("ListMatches", arena_pb2.ListMatchesRequest(status="running"), arena_pb2.ListMatchesResponse)
    if lm is None or done_id not in [m.id for m in lm.matches]:
        found.append("gRPC ListMatches status=running does not list it")
    g = grpc_read("GetMatch", arena_pb2.GetMatchRequest(id=done_id), arena_pb2.ArenaMatch)
    if g is None or g.status != "running":
        found.append(f"gRPC GetMatch: {g and g.status}")
    # Running: the held table and the finished one.
    st = get("/api/status")[1]
    counts = [int(st.get("matches_done", 0)), int(st.get("matches_failed", 0)),
              float(st.get("matches_per_minute", 0)), int(st.get("running", 0))]
    if counts != [0, 0, 0, 2]:
        found.append(f"/api/status: done, failed, per minute, running {counts}")
    gs = grpc_read("Status", arena_pb2.StatusRequest(), arena_pb2.StatusResponse)
    if gs is None or [gs.matches_done, gs.matches_failed, gs.matches_per_minute, gs.running] != [0, 0, 0, 2]:
        found.append(f"gRPC Status: {gs}")
    for t in get("/api/tournaments")[1].get("tournaments", []):
        if int(t["id"]) == int(tid) and (int(t.get("matches_done", 0)) or t.get("finished")):
            found.append(f"/api/tournaments: {t.get('matches_done')} done")
    t = get(f"/api/tournaments/{tid}")[1]
    if int(t.get("matches_done", 0)) or t.get("finished"):
        found.append(f"/api/tournaments/{tid}: {t.get('matches_done')} done")
    gt = grpc_read("GetTournament", arena_pb2.GetTournamentRequest(id=int(tid)), arena_pb2.TournamentInfo)
    if gt is None or gt.matches_done:
        found.append(f"gRPC GetTournament: {gt and gt.matches_done} done")
    with urllib.request.urlopen(HTTP + "/metrics", timeout=10) as r:
        text = r.read().decode()
    if metric(text, "tarock_arena_matches_total"):
        found.append(f"/metrics: tarock_arena_matches_total {metric(text, 'tarock_arena_matches_total')}")
    if metric(text, "tarock_arena_matches_running") != 2:
        found.append(f"/metrics: tarock_arena_matches_running {metric(text, 'tarock_arena_matches_running')}")
    if runmatch_metrics(text):
        found.append(f"/metrics: {runmatch_metrics(text)}")
    if any(e == "finished" and done_id in d for _, e, d in feed):
        found.append("/api/live: 'finished' sent for it")
    fresh = sse_events("/api/live", 1.0)
    if not any(e == "running" and done_id in d for _, e, d in fresh):
        found.append("/api/live: a new subscriber's 'running' list leaves it out")
    # A bot's health_since (online since when) is not moved by a clean seat.
    if health_since() != since_before:
        found.append(f"/api/bots: health_since {since_before} -> {health_since()}")
    for name in ("spy", "r1"):
        gb = grpc_read("GetBot", arena_pb2.GetBotRequest(name=name), arena_pb2.BotInfo)
        if gb is None or gb.health_since != since_before.get(name, ""):
            found.append(f"gRPC GetBot {name}: health_since {gb and gb.health_since}")
    watch = sse_events(f"/api/live/matches/{done_id}", 1.0)
    if any(e == "end" for _, e, d in watch) or not any(e == "match" for _, e, d in watch):
        found.append(f"/api/live/matches/{done_id}: {[e for _, e, d in watch]}")
    return found


leaks = end_leaks()
check(not leaks, f"a sealed table shows that it ended: {leaks}")


# Ratings are sealed with the deal too (issue 44, item 1 of the follow-up): the
# tournament is the first thing rated here, so while its twin tables still play
# no bot has a rating, a rating history or a rating gauge anywhere public.
def rated_anywhere():
    found = []
    lb = get("/api/leaderboard?variant=slovenian-4p")[1]
    if lb.get("entries"):
        found.append(f"/api/leaderboard lists {len(lb['entries'])} bots")
    for b in get("/api/bots")[1].get("bots", []):
        if b.get("ratings"):
            found.append(f"/api/bots: {b['name']} rated")
    for name in ("spy", "r1", "r2", "r3"):
        one = get(f"/api/bots/{name}")[1]
        if one.get("ratings") or one.get("history"):
            found.append(f"/api/bots/{name} rated")
        gb = grpc_read("GetBot", arena_pb2.GetBotRequest(name=name), arena_pb2.BotInfo)
        if gb is None or gb.ratings or gb.history:
            found.append(f"gRPC GetBot {name} rated")
    lb_g = grpc_read("ListBots", arena_pb2.ListBotsRequest(), arena_pb2.ListBotsResponse)
    if lb_g is None or any(b.ratings for b in lb_g.bots):
        found.append("gRPC ListBots rated")
    lg = grpc_read("Leaderboard", arena_pb2.LeaderboardRequest(variant="slovenian-4p"),
                   arena_pb2.LeaderboardResponse)
    if lg is None or lg.entries:
        found.append("gRPC Leaderboard lists bots")
    with urllib.request.urlopen(HTTP + "/metrics", timeout=10) as r:
        metrics = r.read().decode()
    gauges = [l for l in metrics.splitlines()
              if re.match(r"tarock_arena_(rating_mu|rating_sigma|bot_matches|bot_faults)\{", l)]
    if gauges:
        found.append(f"/metrics: {gauges[0]}")
    return found


leaks = rated_anywhere()
check(not leaks, f"ratings moved while a twin table still plays the deal: {leaks}")

gate_opened = time.time()
open(os.path.join(TMP, "gate"), "w").close()
wait(lambda: all(m["status"] == "done" for m in tournament_matches()), 120, "the tournament")
# Its end is public with its deal: the feed's "finished", the counts and the
# RunMatch metrics of all four tables.
wait(lambda: all(any(e == "finished" and m["id"] in d and t > gate_opened for t, e, d in feed)
                 for m in tournament_matches()), 20, "the feed to say that each table finished")
check(not any(e == "finished" and t <= gate_opened for t, e, d in feed),
      "the feed said a table finished before its deal was public")
st = get("/api/status")[1]
check(int(st.get("matches_done", 0)) == 4 and int(st.get("running", 0)) == 0,
      f"/api/status once the deal is public: {st}")
check(get(f"/api/tournaments/{tid}")[1].get("finished"), "the tournament is not finished")


def runmatch_ok():
    with urllib.request.urlopen(HTTP + "/metrics", timeout=10) as r:
        text = r.read().decode()
    return (metric(text, 'grpc_client_handled_total{grpc_code="OK",grpc_method="RunMatch"') == 4 and
            any(l.startswith("grpc_client_handling_seconds_count{") and 'RunMatch' in l and l.endswith(" 4")
                for l in text.splitlines()) and
            metric(text, 'tarock_arena_matches_total{outcome="done"') == 4)


wait(runmatch_ok, 20, "/metrics to count the 4 tables' RunMatch calls once the deal is public")
# Once the last twin is committed the tables are rated (every bot, everywhere).
wait(lambda: len(rated_anywhere()) == 16, 20, "the tournament's ratings once its deal is public")
lb = get("/api/leaderboard?variant=slovenian-4p")[1]
check(len(lb.get("entries", [])) == 4, f"{len(lb.get('entries', []))} bots rated after the tournament, not 4")
check(all(int(e.get("rating", {}).get("matches", 0)) == 4 for e in lb.get("entries", [])),
      f"not every table rated once the deal is public: {lb.get('entries')}")
# Once the deal is public the result and the fault are served.
m1 = get(f"/api/matches/{done_id}")[1]
check(m1.get("finished_at") and float(m1.get("duration_s") or 0) > 0 and int(m1.get("seq") or 0) > 0,
      f"{done_id}: its end (duration, end time, completion order) not shown once public")
wait(lambda: any(l.startswith('tarock_arena_hands_total{outcome="played"') and l.endswith(" 16")
                 for l in played_metrics()), 20, "/metrics to count the 4 tables' 16 hands once public")
check(any(s.get("faults") for s in m1.get("seats", [])), f"{done_id}: the spy's fault not shown once public")
check(any("LEAK-MARKER" in f.get("detail", "") for f in get("/api/bots/spy/faults")[1].get("faults", [])),
      "the faults page does not show the spy's fault once the deal is public")
check(get(f"/api/tournaments/{tid}")[1].get("standings"), "no standings once every table finished")
seeds = set()
records = {}
for m in tournament_matches():
    status, one = get(f"/api/matches/{m['id']}")
    seeds.add(opened(one, m["id"]))
    records[m["id"]] = one["record"]
check(len(seeds) == 1, "the tables of the duplicate set were not dealt from one seed")
tournament_seed = seeds.pop() if seeds else None
status, _ = get(f"/api/matches/{tournament_matches()[0]['id']}/hands/0/replay")
check(status == 200, f"the replay is not served once the deal is public ({status})")

# --- 2. A ladder of three matches.
cli("ladder", "start", "--variant=slovenian-4p", "--format=match", "--hands=4", "--max_matches=3")
ladder_id = None
deadline = time.time() + 120
while check(time.time() < deadline, "the ladder's three matches took over 120 s") and len(failures) < 20:
    ms = get("/api/matches?kind=ladder&limit=10")[1].get("matches", [])
    for m in ms:
        ladder_id = m["ladder_id"]
        if m["status"] != "done":
            sealed(m, f"ladder match {m['id']} ({m['status']})")
    if len(ms) >= 3 and all(m["status"] == "done" for m in ms):
        break
    time.sleep(0.2)
ladder_seeds = {}
for m in get("/api/matches?kind=ladder&limit=10")[1]["matches"]:
    status, one = get(f"/api/matches/{m['id']}")
    ladder_seeds[m["id"]] = opened(one, m["id"])
    records[m["id"]] = one["record"]
    number = int(m["id"].split("-")[1])
    check(ladder_seeds[m["id"]] != hand_seed(0x1ADDE7 ^ int(ladder_id), number),
          f"{m['id']}: the seed is still the public function of the match id")
check(len(set(ladder_seeds.values())) == len(ladder_seeds), "ladder matches share a seed")

# --- 3. What the spy got: no seed, no salt, no card of another seat.
spy = [json.loads(l) for l in open(os.path.join(TMP, "spy.jsonl"))]
secrets = {str(s) for s in list(ladder_seeds.values()) + [tournament_seed] if s}
salts = set()
for mid in records:
    salts.add(get(f"/api/matches/{mid}")[1]["seed_salt"])
for line in spy:
    for s in secrets | salts:
        check(s not in line["text"], f"the spy's {line['kind']} in {line['match']} names a seed or salt")
for text in seen_public:
    for s in secrets | salts:
        check(s not in text, "an API answer served before the deal was public names its seed or salt")
seat_of = {l["match"]: l["seat"] for l in spy if l["kind"] == "match_start"}
check(any(m.startswith("T") for m in seat_of) and any(m.startswith("L") for m in seat_of),
      "the spy sat at no tournament or no ladder match")
checked_deals = 0
for mid, rec in records.items():
    for line, deal in deal_of_each_line([l for l in spy if l["match"] == mid], rec):
        checked_deals += line["kind"] == "hand_start"
        mine = set(deal["hands"][seat_of[line["match"]]])
        allowed = mine | set(deal["talon"])
        got = set(line["cards"])
        if line["kind"] == "hand_start":
            check(got == mine, f"{line['match']} hand {line['hand_index']}: HandStart cards are not the seat's own")
        else:
            check(got <= allowed, f"{line['match']} hand {line['hand_index']}: the seat held {sorted(got - allowed)}")
check(checked_deals >= 4 * 4 + 3 * 4, f"only {checked_deals} of the spy's hands were compared with the records")
for line in spy:
    if line["kind"] == "hand_result":
        if line["match"].startswith("T"):
            check("record_json" not in line["text"],
                  f"{line['match']}: a duplicate table's HandResult carried the hand record")
check(any(l["kind"] == "hand_result" and l["match"].startswith("L") and "record_json" in l["text"]
          for l in spy), "a ladder HandResult lost its record (only duplicate tables withhold it)")
# Issue 44 item 2: a seat's hand record holds no seed of any kind.
for line in spy:
    if line["kind"] == "hand_result":
        check(not re.search(r"seed\W{0,3}:\s*\d", line["text"]),
              f"{line['match']}: a HandResult's hand record names a seed")

# --- 4. A person's play match: a stranger cannot open the relayed seat.
play = post("/api/play", {"variant": "slovenian-4p", "opponents": ["spy", "r1", "r2"]})
view = wait(lambda: (v := get(f"/api/play/{play['id']}")[1]) and v.get("request") and v, 30,
            "the person's first decision")
sealed(get(f"/api/matches/{play['match_id']}")[1], "the running play match")
bot_play = channel.stream_stream("/tarock.v1.Bot/Play",
                                 request_serializer=tarock_pb2.RefereeMessage.SerializeToString,
                                 response_deserializer=tarock_pb2.BotMessage.FromString)
for metadata in ((), (("x-tarock-referee-proof", "f" * 64),)):
    start = tarock_pb2.RefereeMessage()
    start.match_start.match_id = play["match_id"]
    start.match_start.seat = play["seat"]
    start.match_start.num_seats = 4
    try:
        for _ in bot_play(iter([start]), metadata=metadata, timeout=10):
            pass
        check(False, "a stranger's relay stream was not refused")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.PERMISSION_DENIED,
              f"a stranger's relay stream ended with {e.code()}, not PERMISSION_DENIED")
# The seat plays on: the person answers every request until the match ends.
for _ in range(400):
    v = get(f"/api/play/{play['id']}")[1]
    if v["status"] == "done":
        break
    r = v.get("request")
    if r:
        try:
            post(f"/api/play/{play['id']}/action", {"request_id": r["request_id"], "action": r["legal_actions"][0]})
        except urllib.error.HTTPError:
            pass  # answered meanwhile by the fallback
    time.sleep(0.05)
check(v["status"] == "done", f"the play match did not finish after the strangers ({v['status']})")
check(v.get("faults", [0])[play["seat"]] == 0 if isinstance(v.get("faults"), list) else True,
      "the person's seat took faults")
wait(lambda: get(f"/api/matches/{play['match_id']}")[1].get("deal_public"), 30, "the play match's record")
opened(get(f"/api/matches/{play['match_id']}")[1], play["match_id"])
# The spy sat beside the person: nothing it got names the seed, the salt or a
# card not its own.
pm = get(f"/api/matches/{play['match_id']}")[1]
spy_play = [json.loads(l) for l in open(os.path.join(TMP, "spy.jsonl")) if json.loads(l)["match"] == play["match_id"]]
check(any(l["kind"] == "decision" for l in spy_play), "the spy made no decision in the play match")
spy_seat = next((l["seat"] for l in spy_play if l["kind"] == "match_start"), None)
for line in spy_play:
    for s in (str(pm["seed"]), pm["seed_salt"]):
        check(s not in line["text"], f"the spy's {line['kind']} in the play match names its seed or salt")
for line, deal in deal_of_each_line(spy_play, pm["record"]):
    allowed = set(deal["hands"][spy_seat]) | set(deal["talon"])
    check(set(line["cards"]) <= allowed, f"play match hand {line['hand_index']}: the spy held another seat's card")

# --- 5. Play slots (issue 29): a play cookie to start one, two running
# sessions per visitor, four per client network, every play match in the
# audit log.
audit = cli("audit", "--target=match:" + play["match_id"])
check("StartPlayMatch" in audit, f"the play match is not in the audit log: {audit!r}")
game = {"variant": "slovenian-4p", "opponents": ["r1", "r2", "r3"]}
code, body = refused("/api/play", game, "")
check(code == 403 and "play cookie" in json.dumps(body), f"a play match without a cookie: {code} {body}")
forged = "tarock_play=v1." + "ab" * 16 + "." + "cd" * 16
code, body = refused("/api/play", game, forged)
check(code == 403, f"a play match with a forged cookie: {code} {body}")
visitor = play_cookie()
held = [post("/api/play", game, visitor) for _ in range(2)]
code, body = refused("/api/play", game, visitor)
check(code == 429 and "you have 2 play matches running" in json.dumps(body),
      f"a visitor's third running play match was refused with {code} {body}")
held += [post("/api/play", game, play_cookie()) for _ in range(2)]
code, body = refused("/api/play", game, play_cookie())
check(code == 429 and "from your network" in json.dumps(body),
      f"the fifth play match of one network was refused with {code} {body}")

print(f"secret deals: {len(failures)} failures", flush=True)
sys.exit(1 if failures else 0)
