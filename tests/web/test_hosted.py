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
    assert "build_log" not in public["versions"][0] and "content" not in public["versions"][0]
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
        assert len(versions(arena)["versions"]) == before + 1
        wait_until(browser, lambda d: "building" in d.find_element("id", "versions").text,
                   what="the new version in the list")
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
