#!/usr/bin/python3
"""dashboards/ebb.json against docs/operations.md: the Grafana dashboard asks only for metrics
ebb serves, by the labels they carry.

Every metric name in a panel's or a variable's query must be a row of docs/operations.md's metric
table (a summary's or histogram's _sum, _count and _bucket series count as their family), and
every label a query selects, groups by or names in its legend must be one of the labels of a
metric that query reads (`instance` and `job` are Prometheus's own). The table itself is kept
true by the metrics tests (tests/integration/metrics_test.cc). Exits 1 listing each mismatch.

Usage: tests/dashboard_check.py <repository root>
"""
import json
import os
import re
import sys

PROMETHEUS_LABELS = {"instance", "job", "le"}
METRIC = re.compile(r"\b((?:redis|ebb)_[a-z0-9_]+)")
SELECTOR = re.compile(r"\{([^}]*)\}")
MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
LEGEND = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")


def documented(root):
    """{metric name: set of labels} from docs/operations.md's table rows."""
    table = {}
    with open(os.path.join(root, "docs", "operations.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or not re.fullmatch(r"`(redis|ebb)_[a-z0-9_]+`", cells[0]):
                continue
            labels = {l.strip() for l in cells[2].split(",") if l.strip()}
            table[cells[0].strip("`")] = labels
    return table


def family(name, table):
    if name in table:
        return name
    for suffix in ("_sum", "_count", "_bucket"):
        if name.endswith(suffix) and name[: -len(suffix)] in table:
            return name[: -len(suffix)]
    return None


def check_query(where, expr, legend, table, problems):
    names = set(METRIC.findall(expr))
    if not names:
        problems.append(f"{where}: no ebb metric in '{expr}'")
    labels_available = set(PROMETHEUS_LABELS)
    for name in names:
        f = family(name, table)
        if f is None:
            problems.append(f"{where}: '{name}' is not in docs/operations.md's table")
        else:
            labels_available |= table[f]
    used = set()
    for selector in SELECTOR.findall(expr):
        used |= set(MATCHER.findall(selector))
    for group in GROUPING.findall(expr):
        used |= {l.strip() for l in group.split(",") if l.strip()}
    used |= set(LEGEND.findall(legend or ""))
    for label in sorted(used - labels_available):
        problems.append(f"{where}: label '{label}' is not one of {sorted(labels_available)}")


def main():
    root = sys.argv[1]
    table = documented(root)
    if len(table) < 50:
        sys.exit(f"docs/operations.md's metric table has {len(table)} rows: not found")
    with open(os.path.join(root, "dashboards", "ebb.json"), encoding="utf-8") as f:
        dashboard = json.load(f)
    problems = []
    queries = 0
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            continue
        targets = panel.get("targets", [])
        if not targets:
            problems.append(f"panel '{panel['title']}': no query")
        for t in targets:
            queries += 1
            check_query(f"panel '{panel['title']}'", t["expr"], t.get("legendFormat"), table,
                        problems)
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            queries += 1
            check_query(f"variable '{variable['name']}'", variable["definition"], "", table,
                        problems)
    for p in problems:
        print(p)
    print(f"{queries} queries over {len(table)} documented metrics: {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
