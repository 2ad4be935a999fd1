"""Fixtures of the web tests: a real arena stack and a headless Chromium.

    arena          (session) tarock-referee, bot processes and tarock-arena on free
                   loopback ports, the bots registered for every variant; stopped at
                   the end. See ArenaStack for what it offers (url(), cli(), api(), ...).
    start_stack    a factory for a stack of one's own: start_stack(bots=[...]).
    browser        (session) a Selenium WebDriver on Debian's headless Chromium; the
                   tests are skipped (not failed) when chromium, chromedriver or
                   python3-selenium is missing.

The binaries come from $TAROCK_BUILD_DIR/bin (default: build/). Every process a
fixture starts is stopped by it, and every wait is bounded.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

SOURCE_DIR = os.environ.get("TAROCK_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD_DIR = os.environ.get("TAROCK_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
BIN = os.path.join(BUILD_DIR, "bin")

VARIANTS = ["slovenian-4p", "slovenian-3p", "slovenian-5p", "slovenian-tapp", "westfest",
            "tapp-tarock", "tapp-tarock-classic"]

# (name, binary, extra args, owner) of the default stack's bots. The last one's
# owner is chosen by an "entrant" to try the escaping of every page.
DEFAULT_BOTS = [
    ("heuristic", "tarock-bot-heuristic", [], "arena"),
    ("random-a", "tarock-bot-random", ["--seed", "1"], "arena"),
    ("random-b", "tarock-bot-random", ["--seed", "2"], "arena"),
    ("random-c", "tarock-bot-random", ["--seed", "3"], "<script>alert(1)</script>"),
    ("heuristic-b", "tarock-bot-heuristic", [], "arena"),
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("%s exited with %s" % (proc.args[0], proc.returncode))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on port %d after %.0f s" % (port, timeout))


class ArenaStack:
    """A running arena: referee, bots and tarock-arena. Use as a context manager."""

    def __init__(self, bots=None, max_parallel=2, variants=None, arena_args=None):
        self.bots_spec = DEFAULT_BOTS if bots is None else bots
        self.arena_args = list(arena_args or [])
        self.max_parallel = max_parallel
        self.variants = variants or VARIANTS
        self.procs = []
        self.dir = tempfile.mkdtemp(prefix="tarock-web-")
        self.tokens = {}
        self.bot_ports = {}

    # -- processes -------------------------------------------------------------
    def _start(self, name, argv, port):
        log = open(os.path.join(self.dir, name + ".log"), "wb")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        log.close()
        self.procs.append(p)
        wait_port(port, p)
        return p

    def start(self):
        try:
            self.referee_port = free_port()
            self._start("referee", [os.path.join(BIN, "tarock-referee"), "--listen",
                                    "127.0.0.1:%d" % self.referee_port, "--metrics_listen="],
                        self.referee_port)
            for name, binary, args, _ in self.bots_spec:
                port = free_port()
                self.bot_ports[name] = port
                self._start("bot-" + name, [os.path.join(BIN, binary), "--listen",
                                            "127.0.0.1:%d" % port] + list(args), port)
            self.grpc_port = free_port()
            self.http_port = free_port()
            self.arena = self._start("arena", [
                os.path.join(BIN, "tarock-arena"), "--listen", "127.0.0.1:%d" % self.grpc_port,
                "--http_listen", "127.0.0.1:%d" % self.http_port, "--data_dir",
                os.path.join(self.dir, "data"), "--referees", "127.0.0.1:%d" % self.referee_port,
                "--max_parallel", str(self.max_parallel), "--commit_delay_ms", "0"] + self.arena_args,
                self.http_port)
            for name, _, _, owner in self.bots_spec:
                self.add_bot(name, "127.0.0.1:%d" % self.bot_ports[name], owner)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except OSError:
                    pass
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait(timeout=5)
        self.procs = []
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- talking to it -----------------------------------------------------------
    def url(self, path="/"):
        return "http://127.0.0.1:%d%s" % (self.http_port, path)

    def cli(self, *args, timeout=120):
        """Runs tarock-arena-cli against this arena; returns its standard output."""
        out = subprocess.run([os.path.join(BIN, "tarock-arena-cli"), "--arena",
                              "127.0.0.1:%d" % self.grpc_port] + [str(a) for a in args],
                             capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError("tarock-arena-cli %s: %s" % (" ".join(map(str, args)), out.stderr))
        return out.stdout

    def add_bot(self, name, endpoint, owner="arena", variants=None):
        out = self.cli("bots", "add", name, "--endpoint", endpoint, "--variants",
                       ",".join(variants or self.variants), "--owner", owner)
        for line in out.splitlines():
            if line.startswith("token "):
                self.tokens[name] = line.split()[1]
        return self.tokens.get(name)

    def get(self, path, timeout=10):
        """(status, body bytes, headers) of GET path; never raises on HTTP errors."""
        try:
            with urllib.request.urlopen(self.url(path), timeout=timeout) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def api(self, path, timeout=10):
        status, body, _ = self.get(path, timeout)
        if status != 200:
            raise RuntimeError("GET %s: %d %s" % (path, status, body[:200]))
        return json.loads(body)

    def run_tournament(self, variant, bots, deals=1, hands=None, timeout=120):
        args = ["tournament", "run", "--variant", variant, "--bots", ",".join(bots),
                "--deals", deals, "--wait"]
        if hands:
            args += ["--hands", hands]
        return self.cli(*args, timeout=timeout)

    def wait_for(self, predicate, timeout=60, what="condition"):
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = predicate()
            if v:
                return v
            time.sleep(0.2)
        raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))


@pytest.fixture(scope="session")
def start_stack():
    """A factory: start_stack(bots=..., max_parallel=...) -> a started ArenaStack,
    stopped at the end of the session."""
    stacks = []

    def make(**kw):
        s = ArenaStack(**kw).start()
        stacks.append(s)
        return s

    yield make
    for s in stacks:
        s.stop()


@pytest.fixture(scope="session")
def arena(start_stack):
    return start_stack()


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="session")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("python3-selenium is not installed")
    chromium = _chromium()
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chromium or not os.path.exists(driver_path):
        pytest.skip("chromium or chromium-driver is not installed")
    profile = tempfile.mkdtemp(prefix="tarock-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--no-first-run", "--disable-background-networking", "--disable-component-update",
              "--disable-sync", "--window-size=1280,900", "--user-data-dir=" + profile):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(driver_path), options=opts)
    # Every page records what its Content-Security-Policy blocked in
    # window.__cspViolations (csp_violations() reads it).
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_RECORDER})
    drv.set_page_load_timeout(30)
    drv.set_script_timeout(30)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


CSP_RECORDER = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') +
                              ' at ' + (e.sourceFile || '') + ':' + e.lineNumber);
});
"""


def csp_violations(driver):
    """What the current page's Content-Security-Policy blocked so far."""
    return driver.execute_script("return window.__cspViolations || []")


def wait_until(driver, predicate, timeout=20, what="the page"):
    """Polls predicate(driver) until it is truthy; fails with `what` after timeout."""
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(predicate)
    except Exception as e:  # TimeoutException and friends
        raise AssertionError("timed out after %d s waiting for %s (%s)" % (timeout, what, e))
