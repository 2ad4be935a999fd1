#!/usr/bin/python3
"""Checks that every metric an alerting rule or a Grafana dashboard queries
exists: each metric name in their PromQL expressions must be a sample name of
one of the scraped /metrics pages given (or a series Prometheus makes itself,
such as `up`). A typo in deploy/ then fails a test instead of an empty panel or
an alert that can never fire. Also checks the dashboard's shape: every panel
has an id, a position and (rows aside) at least one query.

Usage: check_metric_names.py --metrics PAGE.txt... -- RULES.yml|DASHBOARD.json...
Exit status 0 when everything is found; otherwise 1 with one line per problem.
"""

import json
import re
import sys

import yaml

# Series Prometheus itself adds to every scrape.
BUILTIN = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
           "scrape_samples_post_metric_relabeling", "scrape_series_added"}
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "offset", "bool", "inf", "nan"}
CLAUSE = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
IDENT = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")


def sample_names(path):
    names = set()
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            names.add(IDENT.match(line).group(0))
    return names


def metric_names(expr):
    """The metric names an expression selects."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)   # strings (label values, regexes)
    e = re.sub(r"\{[^}]*\}", " ", e)                # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)               # ranges, $__rate_interval
    e = CLAUSE.sub(" ", e)                          # grouping label lists
    e = re.sub(r"\$\w+", " ", e)                    # Grafana variables
    names = set()
    for m in IDENT.finditer(e):
        word = m.group(0)
        if word.lower() in KEYWORDS:
            continue
        if e[m.end():].lstrip().startswith("("):    # a function or an aggregation
            continue
        if m.start() > 0 and (e[m.start() - 1].isdigit() or e[m.start() - 1] == "."):
            continue                                # 1e3, 5m, 0.5
        names.add(word)
    return names


def rule_exprs(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    for group in doc["groups"]:
        for rule in group["rules"]:
            yield rule.get("alert") or rule.get("record"), rule["expr"]


def dashboard_exprs(path, problems):
    with open(path) as f:
        dash = json.load(f)
    ids = set()
    panels = list(dash["panels"])
    for p in panels:
        panels.extend(p.get("panels", []))          # panels of collapsed rows
    for p in panels:
        if p.get("id") in ids:
            problems.append(f"{path}: panel id {p.get('id')} used twice")
        ids.add(p.get("id"))
        if "gridPos" not in p:
            problems.append(f"{path}: panel {p.get('title')!r} has no gridPos")
        if p.get("type") == "row":
            continue
        targets = [t for t in p.get("targets", []) if t.get("expr")]
        if not targets:
            problems.append(f"{path}: panel {p.get('title')!r} has no query")
        for t in targets:
            yield f"panel {p.get('title')!r}", t["expr"]
    for var in dash.get("templating", {}).get("list", []):
        q = var.get("query")
        if isinstance(q, dict):
            q = q.get("query")
        if var.get("type") == "query" and isinstance(q, str):
            m = re.match(r"\s*label_values\(\s*([^,)]+)", q)
            yield f"variable {var.get('name')!r}", m.group(1) if m else q


def main(argv):
    if "--metrics" not in argv or "--" not in argv:
        sys.exit(__doc__)
    sep = argv.index("--")
    pages, checked = argv[argv.index("--metrics") + 1:sep], argv[sep + 1:]
    known = set(BUILTIN)
    for page in pages:
        known |= sample_names(page)
    problems = []
    total = 0
    for path in checked:
        exprs = rule_exprs(path) if path.endswith((".yml", ".yaml")) else dashboard_exprs(path, problems)
        for where, expr in exprs:
            names = metric_names(expr)
            if not names:
                problems.append(f"{path}: {where}: no metric name in {expr!r}")
            for name in sorted(names - known):
                problems.append(f"{path}: {where}: {name} is not on any scraped /metrics page")
            total += len(names)
    for p in problems:
        print(p)
    if not problems:
        print(f"{total} metric references in {len(checked)} files, all found")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
