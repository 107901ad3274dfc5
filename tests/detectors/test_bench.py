"""Runs the bench sets and asserts the targets from bench/detectors/README.md."""

import importlib.util
from pathlib import Path

EVALUATE = Path(__file__).resolve().parents[2] / "bench" / "detectors" / "evaluate.py"


def _evaluate():
    spec = importlib.util.spec_from_file_location("detectors_evaluate", EVALUATE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.evaluate()


def test_bench_targets():
    r = _evaluate()
    assert r["poisoned"] >= 40 and r["benign"] >= 200
    assert r["recall_any"] >= 0.90
    assert r["recall_class"] >= 0.90
    assert r["fp_rate"] <= 0.01, [(i["where"], [h.rule_id for h in hs]) for i, hs in r["fps"]]
