"""Measure the detectors: recall on poisoned.jsonl, false-positive rate on benign.jsonl.

Run: python bench/detectors/evaluate.py [--verbose]
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from scanner.detectors import load_catalogue, scan_text

HERE = Path(__file__).resolve().parent


def load(name: str) -> list[dict]:
    with open(HERE / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evaluate() -> dict:
    classes = {entry.rule.id: entry.rule_class for entry in load_catalogue()}
    poisoned, benign = load("poisoned.jsonl"), load("benign.jsonl")
    per_class = defaultdict(lambda: [0, 0])  # class -> [caught by expected class, total]
    rule_tp, rule_fp = Counter(), Counter()
    any_hit, misses, fps = 0, [], []
    t0 = time.perf_counter()
    for item in poisoned:
        hits = scan_text(item["text"])
        got = {classes[h.rule_id] for h in hits}
        rule_tp.update({h.rule_id for h in hits})
        per_class[item["class"]][1] += 1
        if item["class"] in got:
            per_class[item["class"]][0] += 1
        if hits:
            any_hit += 1
        else:
            misses.append(item)
    flagged = 0
    for item in benign:
        hits = scan_text(item["text"])
        rule_fp.update({h.rule_id for h in hits})
        if hits:
            flagged += 1
            fps.append((item, hits))
    elapsed = time.perf_counter() - t0
    return {
        "poisoned": len(poisoned), "benign": len(benign),
        "recall_any": any_hit / len(poisoned),
        "recall_class": sum(c for c, _ in per_class.values()) / len(poisoned),
        "per_class": dict(per_class), "rule_tp": rule_tp, "rule_fp": rule_fp,
        "fp_rate": flagged / len(benign), "fp_count": flagged,
        "misses": misses, "fps": fps, "seconds": elapsed,
    }


def main() -> None:
    r = evaluate()
    print(f"poisoned items: {r['poisoned']}   benign texts: {r['benign']}   ({r['seconds']:.3f}s)")
    print(f"recall (any rule fires):            {r['recall_any']:.1%}")
    print(f"recall (rule of expected class):    {r['recall_class']:.1%}")
    print(f"benign false-positive rate:         {r['fp_rate']:.2%} ({r['fp_count']}/{r['benign']})")
    print("\nper class (caught by expected class / total):")
    for cls, (ok, total) in sorted(r["per_class"].items()):
        print(f"  {cls:20s} {ok:3d}/{total:<3d} {ok / total:.0%}")
    print("\nper rule (poisoned items hit / benign texts hit):")
    for entry in load_catalogue():
        rid = entry.rule.id
        print(f"  {rid} {entry.rule_class:20s} {r['rule_tp'][rid]:3d} / {r['rule_fp'][rid]}")
    if "--verbose" in sys.argv:
        for item in r["misses"]:
            print("MISS", item["class"], item["text"][:150])
        for item, hits in r["fps"]:
            print("FP", [h.rule_id for h in hits], item["source"], item["where"], "|", hits[0].evidence)


if __name__ == "__main__":
    main()
