"""The SDK as a standard package, installed the two ways sdk/python/README.md
gives into a fresh virtual environment, and used from outside the source tree
with no PYTHONPATH: the wheel the build makes (build/dist), and
`pip install ./sdk/python` from a copy of the checkout (protoc generates the
messages while pip builds it).

The environments are made with `/usr/bin/python3 -m venv --system-site-packages`:
there is no PyPI here, so grpcio and protobuf (and, for building from source,
setuptools and wheel) come from Debian's python3-* packages; pip runs with
--no-index, so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
from pathlib import Path

from conftest import BUILD, SOURCE, match_json

TEMPLATE = SOURCE / "sdk" / "templates" / "python" / "my_bot.py"
WHEELS = BUILD / "dist"
TIMEOUT = 180  # seconds for one venv or pip step (usually a few)


def clean_env() -> dict[str, str]:
    """The environment without anything that points Python at the build or the sources."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TAROCK_PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1", PYTHONDONTWRITEBYTECODE="1")
    return env


def run(*cmd: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=clean_env(), capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
    return r


def make_venv(path: Path) -> Path:
    """A fresh virtual environment at path; returns its python."""
    run("/usr/bin/python3", "-m", "venv", "--system-site-packages", path, cwd=path.parent)
    return path / "bin" / "python"


def the_wheel() -> Path:
    wheels = sorted(WHEELS.glob("tarock_bot-*-py3-none-any.whl"))
    assert wheels, f"no wheel in {WHEELS}: build the target tarock_python_wheel"
    return wheels[-1]


def check_installed(python: Path, venv: Path, elsewhere: Path) -> dict:
    """Imports the installed package from a directory outside the tree and
    checks that it and its messages come from the environment."""
    probe = (
        "import json, tarock_bot, tarock_bot._proto as p\n"
        "from tarock_bot._proto import arena_pb2\n"
        "try:\n"
        "    from tarock_bot._proto import no_such_pb2\n"
        "    missing = 'imported'\n"
        "except ImportError as e:\n"
        "    missing = str(e)\n"
        "print(json.dumps({'sdk': tarock_bot.__file__, 'pb': p.pb.__file__,\n"
        "  'arena': arena_pb2.__file__, 'module': p.pb.Hello.__module__,\n"
        "  'version': tarock_bot.__version__, 'missing': missing,\n"
        "  'hello': p.pb.BotMessage(hello=p.pb.Hello(name='x')).WhichOneof('message')}))\n"
    )
    found = json.loads(run(python, "-c", probe, cwd=elsewhere).stdout)
    site = str(venv.resolve())
    for key in ("sdk", "pb", "arena"):
        assert found[key].startswith(site), f"{key} imported from {found[key]}, not from {site}"
    assert found["module"] == "tarock_bot._generated.tarock_pb2"
    assert found["hello"] == "hello"
    assert "no generated protocol module no_such_pb2" in found["missing"]

    usage = run(python, "-m", "tarock_bot", "--help", cwd=elsewhere).stdout
    assert "serve" in usage and usage.startswith("usage:"), usage
    script = run(venv / "bin" / "tarock-bot", "--help", cwd=elsewhere).stdout
    assert "serve" in script, script
    return found


def serve_and_play(python: Path, bot: Path, random_bot: str) -> None:
    """`python -m tarock_bot serve` on the bot, one short match against it with
    `tarock match`, then SIGTERM: it must exit cleanly."""
    proc = subprocess.Popen([str(python), "-m", "tarock_bot", "serve", str(bot), "--listen",
                             "127.0.0.1:0"], cwd=bot.parent, env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        assert sel.select(timeout=30), "the bot did not say where it listens within 30 s"
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert " listening on 127.0.0.1:" in line, line + proc.stderr.read()  # type: ignore[union-attr]
        endpoint = line.split()[-1]
        d = match_json("--variant", "slovenian-3p", "--hands", "3", "--seed", "5",
                       f"me={endpoint}", f"r1={random_bot}", f"r2={random_bot}")
        assert d["bots"][0]["faults"] == 0 and d["bots"][0]["decisions"] > 0, d
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(10)
    assert code == 0, proc.stderr.read()  # type: ignore[union-attr]


def test_wheel_in_clean_venv(workdir: Path, random_bot: str) -> None:
    wheel = the_wheel()
    venv = workdir / "venv"
    python = make_venv(venv)
    elsewhere = workdir / "student"
    elsewhere.mkdir()
    run(python, "-m", "pip", "install", "--no-index", wheel, cwd=elsewhere)
    found = check_installed(python, venv, elsewhere)
    assert wheel.name.startswith(f"tarock_bot-{found['version']}-")
    bot = elsewhere / "my_bot.py"
    shutil.copy(TEMPLATE, bot)
    serve_and_play(python, bot, random_bot)


def test_source_install_in_clean_venv(workdir: Path, random_bot: str) -> None:
    """`pip install --no-index --no-build-isolation ./sdk/python` in a copy of
    the checkout (the copy, so the build files pip leaves stay out of the real
    tree): setup.py generates the messages with protoc from ../../proto, and
    they equal the build's."""
    checkout = workdir / "checkout"
    shutil.copytree(SOURCE / "proto", checkout / "proto")
    shutil.copytree(SOURCE / "sdk" / "python", checkout / "sdk" / "python",
                    ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "_generated",
                                                  "__pycache__", ".pytest_cache"))
    venv = workdir / "venv"
    python = make_venv(venv)
    run(python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "./sdk/python",
        cwd=checkout)
    elsewhere = workdir / "student"
    elsewhere.mkdir()
    found = check_installed(python, venv, elsewhere)
    generated = Path(found["pb"]).parent
    built = BUILD / "python" / "tarock_bot" / "_generated"
    names = sorted(p.name for p in generated.iterdir() if p.suffix in (".py", ".pyi"))
    assert names == sorted(p.name for p in built.iterdir() if p.suffix in (".py", ".pyi"))
    for name in names:
        assert (generated / name).read_text() == (built / name).read_text(), name
    assert not (checkout / "sdk" / "python" / "tarock_bot" / "_generated").exists()
    bot = elsewhere / "my_bot.py"
    shutil.copy(TEMPLATE, bot)
    serve_and_play(python, bot, random_bot)
