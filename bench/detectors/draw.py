"""FRESH22's rule, the draw of a batch of PyPI servers from this workplace's package list (issue 38).

    python bench/detectors/draw.py MONTH SEED COMMIT [--list /usr/share/package-lists/pypi.tsv] > draw.tsv

Newest release in MONTH (`YYYY-MM`), summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as
words (case-insensitive); in no earlier batch (a name counts as earlier when `servers.py` as of COMMIT holds it, quoted
or not, case-insensitive, not after a `/`: the text before the batch is listed, so its list commit's parent); FRESH6's
words of the name or summary and FRESH5's account words of the summary left out, each as a word or its plural; then
`random.Random(SEED).sample(..., 130)` of the name-sorted rows. Prints the counts on stderr (a new draw first reproduces
the previous batch's counts and rows from its own list commit's parent) and the drawn rows (name, version, summary) on
stdout. Reads the list and the file's text only: nothing is downloaded or run.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import subprocess
import sys
from pathlib import Path

DRAWN = 130
SUMMARY = re.compile(r"\bmcp[ -]+server\b|\bmodel context protocol (\(mcp\) )?server\b", re.IGNORECASE)
WORDS = ("SDK", "framework", "proxy", "client", "plugin", "gateway", "bridge", "aggregator", "router", "hub", "toolkit",
         "library", "template", "starter", "deprecated", "boilerplate", "installer", "manager", "orchestrator",
         "generator", "scanner", "middleware")
ACCOUNT = ("API key", "token", "account", "credential", "OAuth", "log in", "sign in", "subscription", "SaaS", "cloud",
           "auth")


def _has(words: tuple[str, ...], text: str) -> bool:
    return any(re.search(r"\b" + re.escape(w).replace(r"\ ", r"[ -]?") + r"s?\b", text, re.IGNORECASE) for w in words)


def _earlier(name: str, text: str) -> bool:
    return re.search(r"(?<![\w./-])" + re.escape(name) + r"(?![\w-])", text, re.IGNORECASE) is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("month")
    parser.add_argument("seed", type=int)
    parser.add_argument("commit", help="servers.py as of this commit holds the earlier batches")
    parser.add_argument("--list", type=Path, default=Path("/usr/share/package-lists/pypi.tsv"))
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[2]
    text = subprocess.run(["git", "-C", str(root), "show", f"{args.commit}:bench/detectors/servers.py"],
                          capture_output=True, text=True, check=True).stdout
    csv.field_size_limit(1 << 30)
    with args.list.open(newline="", encoding="utf-8") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        month = [(r + [""] * 5)[:5] for r in rows if len(r) > 2 and r[2] == args.month]
    matching = [(name, version, summary) for name, version, _m, _rank, summary in month if SUMMARY.search(summary)]
    fresh = [row for row in matching if not _earlier(row[0], text)]
    kept = sorted(row for row in fresh if not _has(WORDS, row[0].replace("_", "-")) and not _has(WORDS, row[2])
                  and not _has(ACCOUNT, row[2]))
    print(f"month {len(month)}, summary {len(matching)}, in no earlier batch {len(fresh)}, after the word filters "
          f"{len(kept)}", file=sys.stderr)
    for name, version, summary in random.Random(args.seed).sample(kept, DRAWN):
        print(f"{name}\t{version}\t{summary}")


if __name__ == "__main__":
    main()
