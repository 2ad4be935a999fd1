#!/usr/bin/python3
"""The README's picture: a screenshot of a running arena's match viewer.

Takes a finished match from the arena's JSON API, opens the viewer in headless
Chromium in the middle of one of its hands (the table, the trick and the
action log), and saves the top of the page as a PNG.

    ./scripts/run.sh --matches 40 --data /tmp/picture-data    # prints "== web: URL"
    scripts/readme_picture.py URL docs/img/viewer.png          # while it runs (Debian's python3)

Needs chromium, chromium-driver and python3-selenium (scripts/setup.sh installs
them). Options: --width/--height of the window (1200x760), --hand K (2) and
--action N (30) of the moment shown, --match ID (default: the newest done
ladder match of --variant, slovenian-4p). Exit status 1 when no match or no
page could be had.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request


def newest_done_match(base, variant):
    with urllib.request.urlopen(f"{base}/api/matches?limit=50&status=done&variant={variant}",
                                timeout=10) as r:
        data = json.load(r)
    matches = data["matches"] if isinstance(data, dict) else data
    for m in matches:
        if m.get("status", "done") == "done":
            return m["id"]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("url", help="the arena's web address, as run.sh prints it")
    ap.add_argument("out", help="the PNG to write")
    ap.add_argument("--variant", default="slovenian-4p")
    ap.add_argument("--match", default="")
    ap.add_argument("--hand", type=int, default=2)
    ap.add_argument("--action", type=int, default=30)
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--height", type=int, default=760)
    args = ap.parse_args()
    base = args.url.rstrip("/")
    match = args.match or newest_done_match(base, args.variant)
    if not match:
        print("no finished match yet: let the ladder play a few", file=sys.stderr)
        return 1

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    chromium = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                     if shutil.which(n)), None)
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chromium or not os.path.exists(driver_path):
        print("chromium and chromium-driver are needed", file=sys.stderr)
        return 1
    profile = tempfile.mkdtemp(prefix="tarock-picture-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--no-first-run", "--disable-background-networking", "--hide-scrollbars",
              f"--window-size={args.width},{args.height}", "--user-data-dir=" + profile):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(driver_path), options=opts)
    try:
        drv.set_page_load_timeout(30)
        drv.get(f"{base}/matches/{match}?hand={args.hand}&action={args.action}")
        deadline = time.time() + 20
        while time.time() < deadline:  # the viewer draws the seats once the record is in
            if drv.find_elements(By.CSS_SELECTOR, ".card"):
                break
            time.sleep(0.2)
        else:
            print(f"the viewer of {match} showed no cards", file=sys.stderr)
            return 1
        time.sleep(0.5)  # fonts and the action log's scroll
        drv.save_screenshot(args.out)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print(f"{args.out}: match {match}, hand {args.hand}, action {args.action}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
