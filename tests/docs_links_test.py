#!/usr/bin/env python3
"""Keeps the links between the tree's documents working.

Every relative link of every Markdown file of the source tree (outside build
directories and fenced code), and every relative href/src of the web pages
(arena/web/static/*.html), must name a file or directory that exists; a link
with an #anchor into a Markdown file must name one of its headings, spelled
the way GitHub makes heading anchors (lower case; punctuation but `-` and `_`
dropped; spaces to `-`; a repeated heading gets -1, -2, ...), or an explicit
<a name="..."> / id="...".

Usage: docs_links_test.py SOURCE_DIR
Prints each broken link as FILE: LINK (why) and exits 1 when there is one.
"""

from __future__ import annotations

import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|\b(?:href|src)=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
FENCED = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
SKIP_DIRS = {"build", ".git", "node_modules", "__pycache__"}


def slug(heading: str) -> str:
    h = heading.strip().lower().replace("`", "")
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)  # a link in a heading: its text
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


_anchor_cache: dict[str, set[str]] = {}


def anchors(path: str) -> set[str]:
    if path not in _anchor_cache:
        text = FENCED.sub("", open(path, encoding="utf-8").read())
        found: set[str] = set()
        seen: dict[str, int] = {}
        for m in HEADING.finditer(text):
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
        found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
        found.update(re.findall(r"\bid=\"([^\"]+)\"", text))
        _anchor_cache[path] = found
    return _anchor_cache[path]


def documents(root: str):
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
        for f in files:
            rel = os.path.relpath(os.path.join(d, f), root)
            if f.endswith(".md") or (rel.startswith(os.path.join("arena", "web")) and f.endswith(".html")):
                yield os.path.join(d, f)


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    bad = checked = 0
    for path in documents(root):
        text = open(path, encoding="utf-8").read()
        if path.endswith(".md"):
            text = FENCED.sub("", text)
            text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
        for m in LINK.finditer(text):
            link = m.group(1) or m.group(2)
            if re.match(r"^([a-z][a-z0-9+.-]*:|/|#$|\$|\{)", link, re.I):
                continue  # absolute URLs, site paths of the web pages, templates
            target, _, anchor = link.partition("#")
            if path.endswith(".html") and not target:
                continue  # in-page anchors of the web pages are set by scripts
            full = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            checked += 1
            rel = os.path.relpath(path, root)
            if not os.path.exists(full):
                print(f"{rel}: {link} (no such file)")
                bad += 1
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                print(f"{rel}: {link} (no heading with that anchor)")
                bad += 1
    print(f"{checked} links checked, {bad} broken")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
