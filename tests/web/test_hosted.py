"""Hosted bots on the web (issue 31, docs/hosting.md): the JSON upload API
(POST /api/bots/NAME/versions) and its refusals, each with one clear line, a
4xx and nothing stored, and the bot page's "Hosted versions" panel in a real
browser: the owner pastes the token, picks a file and uploads; the list shows
the version with its status, and the build log only with the token. Desktop
and a 390 px phone width. No bot host runs here: versions stay "building".

    TAROCK_BUILD_DIR=build python3 -m pytest -q tests/web/test_hosted.py
"""

import io
import json
import os
import tempfile
import urllib.error
import urllib.request
import zipfile

from conftest import csp_violations, wait_until

SCREENSHOTS = os.environ.get("TAROCK_SCREENSHOTS", "")
MAX_UPLOAD = 20000       # --max_upload_bytes of this arena
MAX_REQUEST = 65536      # --max_request_bytes: the HTTP door's own limit

BOT = "import random\n\nclass MyBot:\n    def decide(self, s):\n        return s.legal_actions[0]\n"


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


def request(arena, method, path, body=None, token=None):
    headers = {"Content-Type": "application/octet-stream"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(arena.url(path), data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, {"raw": raw[:200].decode("latin-1")}


def zipped(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries:
            z.writestr(name, data)
    return buf.getvalue()


def hosted_stack(start_stack):
    stack = start_stack(bots=[], variants=["slovenian-4p"],
                        arena_args=["--max_upload_bytes", str(MAX_UPLOAD),
                                    "--max_request_bytes", str(MAX_REQUEST)])
    out = stack.cli("bots", "add", "hosted-web", "--dial_in", "--variants", "slovenian-4p",
                    "--owner", "teacher")
    token = [l.split()[1] for l in out.splitlines() if l.startswith("token ")][0]
    out = stack.cli("bots", "add", "other-web", "--dial_in", "--variants", "slovenian-4p",
                    "--owner", "someone")
    other = [l.split()[1] for l in out.splitlines() if l.startswith("token ")][0]
    return stack, token, other


def versions(arena, token=None):
    status, body = request(arena, "GET", "/api/bots/hosted-web/versions", token=token)
    assert status == 200, body
    return body


def test_upload_api_refusals_change_nothing(start_stack):
    arena, token, other = hosted_stack(start_stack)
    path = "/api/bots/hosted-web/versions?filename=bot.py"
    refusals = [
        ("no token", None, BOT.encode(), 401),
        ("another bot's token", other, BOT.encode(), 403),
        ("a wrong token", "x" * 40, BOT.encode(), 403),
        ("empty", token, b"", 400),
        ("too large for the upload limit", token, b"#" * (MAX_UPLOAD + 10), 400),
        ("not UTF-8", token, b"\xff\xfe\x00bad = 1\n", 400),
    ]
    for what, tok, body, code in refusals:
        status, answer = request(arena, "POST", path, body, tok)
        assert status == code, (what, status, answer)
        assert "error" in answer and "\n" not in answer["error"].strip(), (what, answer)
    # Larger than the HTTP door takes at all: 413 before any handler.
    status, _ = request(arena, "POST", path, b"#" * (MAX_REQUEST + 100), token)
    assert status == 413
    # Bad zips: a ../ path, a link, no entry point.
    for what, body in [
        ("../ path", zipped([("../evil.py", BOT), ("bot.py", BOT)])),
        ("absolute path", zipped([("/etc/evil.py", BOT), ("bot.py", BOT)])),
        ("no entry point", zipped([("helpers.py", BOT)])),
        ("not a zip", b"PK\x03\x04 this is no zip at all"),
    ]:
        status, answer = request(arena, "POST", "/api/bots/hosted-web/versions?filename=b.zip",
                                 body, token)
        assert status == 400, (what, status, answer)
    link = io.BytesIO()
    with zipfile.ZipFile(link, "w") as z:
        info = zipfile.ZipInfo("bot.py")
        info.external_attr = (0o120777 << 16)  # a symbolic link
        z.writestr(info, "/etc/shadow")
    status, answer = request(arena, "POST", "/api/bots/hosted-web/versions?filename=l.zip",
                             link.getvalue(), token)
    assert status == 400, answer
    # No such bot.
    status, _ = request(arena, "POST", "/api/bots/nobody/versions?filename=bot.py", BOT.encode(),
                        token)
    assert status in (403, 404)
    assert versions(arena, token)["versions"] == []
    # A good one: 201, building; the list shows it, the log only with the token.
    status, v = request(arena, "POST", path + "&kind=python", BOT.encode(), token)
    assert status == 201, v
    assert v["status"] == "building" and v["kind"] == "python" and v["size"] == len(BOT)
    public = versions(arena)
    assert public["owner"] is False and len(public["versions"]) == 1
    assert "content" not in public["versions"][0]
    # Without the token no build log, but the note that no bot host is connected.
    assert "no bot host is connected" in public["versions"][0].get("build_log", ""), public
    assert versions(arena, other)["owner"] is False
    assert versions(arena, token)["owner"] is True
    assert "build_log" in versions(arena, token)["versions"][0]
    # Faults: none yet, and the endpoint answers for any bot.
    assert arena.api("/api/bots/hosted-web/faults") == {"faults": []}


def test_bot_page_upload_form(start_stack, browser):
    arena, token, _ = hosted_stack(start_stack)
    tmp = tempfile.mkdtemp(prefix="tarock-web-upload-")
    good = os.path.join(tmp, "my_bot.py")
    with open(good, "w") as f:
        f.write(BOT)
    bad = os.path.join(tmp, "broken.zip")
    with open(bad, "wb") as f:
        f.write(zipped([("../evil.py", BOT)]))
    for width, height, tag in [(1280, 900, "desktop"), (390, 844, "phone")]:
        browser.set_window_size(width, height)
        browser.get(arena.url("/bots/hosted-web"))
        wait_until(browser, lambda d: d.find_elements("id", "upload-form"), what="the upload form")
        wait_until(browser, lambda d: d.find_element("id", "versions").text.strip(),
                   what="the versions list")
        # A bad zip: refused with its one line, nothing added.
        browser.find_element("id", "upload-token").send_keys(token)
        browser.find_element("id", "upload-file").send_keys(bad)
        browser.find_element("id", "upload-button").click()
        wait_until(browser, lambda d: "Refused" in d.find_element("id", "upload-result").text,
                   what="the refusal")
        assert ".." in browser.find_element("id", "upload-result").text
        before = len(versions(arena)["versions"])
        # The good file.
        browser.find_element("id", "upload-file").clear()
        browser.find_element("id", "upload-file").send_keys(good)
        browser.find_element("id", "upload-button").click()
        wait_until(browser, lambda d: d.find_elements("id", "upload-ok"), what="the upload")
        if tag == "desktop":
            assert len(versions(arena)["versions"]) == before + 1
        else:
            # The same file again (issue 48): no new version, and the page says so.
            assert len(versions(arena)["versions"]) == before
            newest = versions(arena)["versions"][0]["id"]
            text = browser.find_element("id", "upload-ok").text
            assert "Unchanged" in text and "v%d" % newest in text, text
        wait_until(browser, lambda d: "building" in d.find_element("id", "versions").text,
                   what="the new version in the list")
        # No bot host runs here: the upload and the list say so (issue 47).
        assert "no bot host is connected" in browser.find_element("id", "upload-ok").text
        assert "no bot host is connected" in browser.find_element("id", "no-host").text
        # The form states this arena's limit (issue 48), and its docs path is a link
        # to the document as the arena serves it.
        assert browser.find_element("id", "upload-limit").text == "at most 19.5 KiB"
        link = browser.find_element("css selector", "#hosted a.doc-link")
        assert link.text == "docs/hosting.md" and link.get_attribute("href") == arena.url("/docs/hosting.md")
        # With the token the list has the build logs (empty while building:
        # no <details> then), and the page never puts the token in the URL.
        assert token not in browser.current_url
        assert browser.execute_script("return document.documentElement.scrollWidth") <= max(width, 390)
        screenshot(browser, "hosted-upload-%s.png" % tag)
        assert not csp_violations(browser)
    # Reloaded without the token: the list, no logs, no owner's view.
    browser.get(arena.url("/bots/hosted-web"))
    wait_until(browser, lambda d: "building" in d.find_element("id", "versions").text,
               what="the list without the token")
    assert not browser.find_elements("css selector", ".build-log")
    assert "no bot host is connected" in browser.find_element("id", "no-host").text
    # The documents the pages link are served as plain text; nothing else under /docs/.
    status, body, headers = arena.get("/docs/hosting.md")
    assert status == 200 and headers["Content-Type"].startswith("text/plain"), headers
    assert body.startswith(b"# ") and b"bot host" in body
    for path in ("/docs/nothing.md", "/docs/img", "/docs/../CMakeLists.txt", "/docs/screenshots/home.png"):
        assert arena.get(path)[0] == 404, path


# A hosted awk bot that says hello on standard error and takes a little time
# on each decision, so that its match runs long enough to be looked at.
STDERR_BOT_PREFIX = 'BEGIN { print "hello from the hosted seat" > "/dev/stderr"; fflush("/dev/stderr") }\n'


def test_match_page_shows_a_hosted_seats_stderr_to_its_owner(start_stack, browser):
    """The match page's "Standard error of a hosted seat" panel: the owner
    pastes the token (never in the URL); while the deal is being played the
    API's 409 reads as a sentence; once the match is done the log shows;
    another token is refused. Needs a real bot host: root and bwrap."""
    import glob
    import shutil
    import signal
    import subprocess
    import time
    if os.geteuid() != 0 or not shutil.which("bwrap"):
        import pytest
        pytest.skip("a bot host needs root and bwrap")
    from conftest import BIN
    bots = [("rnd-1", "tarock-bot-random", ["--seed", "1"], "arena"),
            ("rnd-2", "tarock-bot-random", ["--seed", "2"], "arena"),
            ("rnd-3", "tarock-bot-random", ["--seed", "3"], "arena")]
    arena = start_stack(bots=bots, variants=["slovenian-4p"])
    tok = lambda out: [l.split()[1] for l in out.splitlines() if l.startswith("token ")][0]
    host_token = tok(arena.cli("hosts", "add", "web-host"))
    token = tok(arena.cli("bots", "add", "hosted-err", "--hosted", "--variants", "slovenian-4p",
                          "--owner", "student"))
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "sdk", "templates", "stdio", "my_bot.awk")) as f:
        template = f.read()
    # Held by the test: while a file `hold` is in the version's folder (the
    # host binds it read-only at /bot, a live view), each decision request
    # waits 0.5 s before the template answers, so the match is surely still
    # being played when the page asks, however slowly the browser starts;
    # once the test removes it, the match ends in seconds.
    script = STDERR_BOT_PREFIX + '{ system("test -e /bot/hold && sleep 0.5") }\n' + template
    work = tempfile.mkdtemp(prefix="tarock-web-host-")
    os.chmod(work, 0o755)
    path = os.path.join(work, "slow_bot.awk")
    with open(path, "w") as f:
        f.write(script)
    host_log = open(os.path.join(work, "host.log"), "wb")
    host = subprocess.Popen([os.path.join(BIN, "tarock-bothost"), "--arena", "127.0.0.1:%d" % arena.grpc_port,
                             "--name", "web-host", "--work_dir", os.path.join(work, "host"),
                             "--check_timeout_s", "15"],
                            env=dict(os.environ, TAROCK_HOST_TOKEN=host_token), stdout=host_log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        arena.cli("bots", "upload", "hosted-err", "--token", token, path)
        arena.wait_for(lambda: "hosted-err  hosted (online" in arena.cli("bots", "list"), timeout=60,
                       what="the hosted bot online")
        # Held (above) until the page has shown the 409: a match of 40 ms
        # decisions once ended before a slowly started browser asked.
        versions = [d for d in glob.glob(os.path.join(work, "host", "versions", "*")) if os.path.isdir(d)]
        assert versions, "the host unpacked no version"
        holds = [os.path.join(v, "hold") for v in versions]
        for h in holds:
            open(h, "w").close()
            os.chmod(h, 0o644)
        arena.cli("ladder", "start", "--variant", "slovenian-4p", "--format", "match",
                  "--max_matches", "1", "--hands", "12", "--per_decision_ms", "5000")
        running = arena.wait_for(lambda: [m for m in arena.api("/api/matches?status=running")["matches"]],
                                 timeout=60, what="the match running")
        mid = running[0]["id"]
        # While it runs: the panel is there; the API's 409 is a sentence.
        browser.set_window_size(1280, 900)
        browser.get(arena.url("/matches/" + mid))
        wait_until(browser, lambda d: d.find_elements("id", "stderr-form"), what="the stderr panel")
        from selenium.webdriver.support.ui import Select
        # While it runs, the seats' versions are not known yet: every seat's bot is offered.
        Select(browser.find_element("id", "stderr-bot")).select_by_value("hosted-err")
        browser.find_element("id", "stderr-token").send_keys(token)
        browser.find_element("id", "stderr-button").click()
        wait_until(browser, lambda d: d.find_elements("id", "stderr-wait"),
                   what="the 'still being played' sentence (shown: %r)" % browser.find_element("id", "stderr-result").text)
        assert "still being played" in browser.find_element("id", "stderr-wait").text
        assert arena.api("/api/matches/" + mid)["status"] in ("running", "pending"), \
            "the match ended before the page asked: the 409 was not seen"
        assert token not in browser.current_url
        browser.execute_script("document.getElementById('seat-stderr').scrollIntoView()")
        screenshot(browser, "hosted-stderr-running-desktop.png")
        assert not csp_violations(browser)
        for h in holds:
            os.remove(h)
        # The page turns into the record when the match ends; what the owner
        # typed and was answered stays.
        wait_until(browser, lambda d: d.find_elements("id", "scoreline"), timeout=120,
                   what="the record, once the match is over")
        assert browser.find_element("id", "stderr-token").get_attribute("value") == token
        assert browser.find_elements("id", "stderr-wait")
        # Once done: the log, for the owner only.
        arena.wait_for(lambda: arena.api("/api/matches/" + mid)["status"] == "done", timeout=120,
                       what="the match done")

        def log_ready():
            req = urllib.request.Request(arena.url("/api/matches/%s/stderr?bot=hosted-err" % mid),
                                         headers={"Authorization": "Bearer " + token})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status == 200
            except urllib.error.HTTPError:
                return False
        arena.wait_for(log_ready, timeout=30, what="the seat's log at the arena")
        for width, height, tag in [(1280, 900, "desktop"), (390, 844, "phone")]:
            browser.set_window_size(width, height)
            browser.get(arena.url("/matches/" + mid))
            wait_until(browser, lambda d: d.find_elements("id", "stderr-form"), what="the stderr panel")
            # Another bot's token: refused.
            browser.find_element("id", "stderr-token").send_keys("x" * 40)
            browser.find_element("id", "stderr-button").click()
            wait_until(browser, lambda d: "Refused" in d.find_element("id", "stderr-result").text,
                       what="the refusal")
            tok_box = browser.find_element("id", "stderr-token")
            tok_box.clear()
            tok_box.send_keys(token)
            browser.find_element("id", "stderr-button").click()
            wait_until(browser, lambda d: d.find_elements("id", "stderr-log"), what="the log")
            assert "hello from the hosted seat" in browser.find_element("id", "stderr-log").text
            assert token not in browser.current_url
            assert browser.execute_script("return document.documentElement.scrollWidth") <= max(width, 390)
            browser.execute_script("document.getElementById('seat-stderr').scrollIntoView()")
            screenshot(browser, "hosted-stderr-%s.png" % tag)
            assert not csp_violations(browser)
    finally:
        try:
            os.killpg(host.pid, signal.SIGTERM)
            host.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(host.pid, signal.SIGKILL)
            host.wait(timeout=10)
        host_log.close()
        shutil.rmtree(work, ignore_errors=True)
