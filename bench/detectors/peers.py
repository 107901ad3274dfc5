"""Peers side by side: two offline scanners' text rules on the held-out sets, with mcp-lock's figures beside them.

    python bench/detectors/peers.py            # installs the peers into bench/.cache/peers-venv, then scores
    python bench/detectors/peers.py --json OUT
    python bench/detectors/peers.py --tuning   # the same basis on the tuning servers' tools, each flagged one listed

The peers are installed from the package registry into a venv of their own (never the project's dependencies):
* heldfast 0.2.3, its text rules (`heldfast.rules.poisoning`: agent-directed instruction signals MCPA010, invisible
  characters MCPA011, credential paths MCPA012, confusable letters), run on each text of a definition (a tool's
  description non-strict, schema strings strict, as heldfast's own targets are);
* cisco-ai-mcp-scanner 4.8.7, its YARA rules (`mcpscanner/data/yara_rules/*.yara`, compiled with yara-python), run on
  the description and on the JSON of the input schema, as its YARA analyzer reads a tool. Installed `--no-deps`
  plus yara-python: its other dependencies (litellm, tree-sitter, an API server) serve analyzers not run here.

A definition counts as flagged by a peer when any of its rules fires (neither grades payload from wording), and a
server as blocked when any of its definitions is flagged. mcp-lock's columns are its own blocking decisions
(`adapter.Detection.blocks`): on a change (a bump bringing the text) and at a first lock.
Only held-out data is scored: the held-out author sets and the held-out benign servers (`per_server.held_out`).
False positives per held-out tool definition are on one basis for all three: the same tools of the held-out servers,
mcp-lock's each declared alone beside its own server's other definitions (`ours_per_tool`): flagged when any
poisoning rule fires, as a peer's count is when any of its rules does, and (mcp-lock only) when the finding blocks a
change. Counts only: no held-out text or miss is printed. The held-out servers are those of every benign folder
(`FOLDERS`), each part also counted on its own; "first two parts" is the basis of the figures before the sixth batch,
"first five parts" that of the figures before the ninth, "first six parts" that of the figures before the tenth,
"first seven parts" that of the figures before the eleventh. `held_out_now` is what is held out since the re-split
of 2026-12-07 (`per_server.RETIRED`: the held-out parts before fresh8 became tuning); the bases counting those parts
are history.

`--tuning` scores the tuning servers' tools only (the retired held-out parts among them; no held-out item is read), on
the same basis, and lists each tool
mcp-lock flags with its rules: what tuning may look at to bring the per-tool rate down.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VENV = HERE.parent / ".cache" / "peers-venv"
PEERS = ("heldfast==0.2.3", "cisco-ai-mcp-scanner==4.8.7", "yara-python==4.5.4")
HELD_OUT_SETS = ("positives_independent_heldout", "positives_heldout")
FOLDERS = ("benign", "benign_fresh", "benign_fresh2", "benign_fresh3", "benign_fresh4", "benign_fresh5",
           "benign_fresh6", "benign_fresh7", "benign_fresh8",
           "benign_fresh9", "benign_fresh10", "benign_fresh11", "benign_fresh12", "benign_fresh13", "benign_fresh14",
           "benign_fresh15", "benign_fresh16", "benign_fresh17", "benign_fresh18", "benign_fresh19",
           "benign_fresh20", "benign_fresh21", "benign_fresh22",
           "benign_fresh23", "benign_fresh24", "benign_fresh25",
           "benign_fresh26", "benign_fresh27", "benign_fresh28",
           "benign_fresh29", "benign_fresh30", "benign_fresh31",
           "benign_fresh32", "benign_fresh33", "benign_fresh34",
           "benign_fresh35", "benign_fresh36", "benign_fresh37")

_COUNTED = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
            "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five", "twenty-six",
            "twenty-seven", "twenty-eight", "twenty-nine", "thirty", "thirty-one", "thirty-two",
            "thirty-three", "thirty-four", "thirty-five", "thirty-six", "thirty-seven", "thirty-eight")

_PEER_CODE = r'''
import json, sys
from pathlib import Path
import importlib.util
import yara
from heldfast.rules.poisoning import SENSITIVE_PATHS, _scan_text, invisible_runs
from heldfast.confusables import mixed_script_words

# The package's data only: importing mcpscanner loads analyzers whose dependencies are not installed here.
rules_dir = Path(importlib.util.find_spec("mcpscanner").submodule_search_locations[0]) / "data" / "yara_rules"
compiled = yara.compile(filepaths={p.stem: str(p) for p in sorted(rules_dir.glob("*.yara"))})

def strings(value, out):
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings(v, out)
    elif isinstance(value, list):
        for v in value:
            strings(v, out)
    return out

def heldfast(definition):
    texts = [(definition.get("description") or "", False)]
    texts += [(t, True) for t in strings(definition.get("inputSchema") or {}, [])]
    for text, strict in texts:
        if not text:
            continue
        if next(iter(_scan_text(text, strict)), None) or invisible_runs(text) or SENSITIVE_PATHS.search(text):
            return True
        if mixed_script_words(text):
            return True
    return False

def cisco(definition):
    text = (definition.get("description") or "") + "\n" + json.dumps(definition.get("inputSchema") or {})
    return bool(compiled.match(data=text.encode("utf-8", "surrogatepass")))

for line in sys.stdin:
    definition = json.loads(line)
    print(json.dumps([heldfast(definition), cisco(definition)]), flush=True)
'''


def ensure_venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        venv.create(VENV, with_pip=True)
    check = "import heldfast, yara, importlib.util as u; assert u.find_spec('mcpscanner')"
    probe = subprocess.run([str(python), "-c", check], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", *PEERS], check=True)
    return python


def peer_verdicts(python: Path, definitions: list[dict[str, Any]]) -> list[tuple[bool, bool]]:
    """(heldfast flags it, Cisco's YARA rules flag it) for each definition, in the peers' own venv."""
    stdin = "".join(json.dumps(d) + "\n" for d in definitions)
    done = subprocess.run([str(python), "-c", _PEER_CODE], input=stdin, capture_output=True, text=True, check=True)
    return [tuple(json.loads(line)) for line in done.stdout.splitlines()]  # type: ignore[misc]


def ours_per_tool(servers: list[Any], hits: list[tuple[str, list[str]]] | None = None) -> tuple[int, int, int, int]:
    """(tool definitions, flagged, blocking a change, blocking a first lock) among the tools of `servers`, on the
    peers' basis: each tool
    declared alone (no neighbour server), as newly added to its own server's other definitions (`adapter.each_added`,
    as `run.py` scores the benign corpus); flagged when any poisoning rule fires, as a peer is when any of its rules
    does. A first lock blocks on what a change blocks through a payload (`at_first_pin`: wording only is shown
    there without blocking). With `hits` (tuning servers only), each flagged tool's label and poisoning rules are
    appended to it."""
    from adapter import each_added, is_poisoning

    from scanner.model.findings import WORDING

    n = flagged = blocks = first = 0
    for server in servers:
        for kind, key, _found, alone in each_added(server.definitions, server.package):
            if kind != "tools":
                continue
            found = alone()
            n += 1
            rules = sorted({d.rule_id for d in found if is_poisoning(d.rule_id)})
            flagged += bool(rules)
            blocks += any(d.blocks for d in found)
            first += any(d.blocks and d.evidence_kind != WORDING for d in found)
            if rules and hits is not None:
                hits.append((f"{server.label} {key}" + (" (blocks a change)" if any(d.blocks for d in found)
                                                         else ""), rules))
    return n, flagged, blocks, first


def tuning(python: Path) -> None:
    """Our per-tool rate and the peers' on the tuning servers' tools, with the rules behind each of ours."""
    from collections import Counter

    from corpus import DATA, load_benign, wilson
    from per_server import kept_held_out

    # tuning servers, the retired held-out parts among them (`per_server.RETIRED`)
    servers = [s for folder in FOLDERS for s in load_benign(DATA / folder) if not kept_held_out(folder, s.package)]
    flat = [d for s in servers for d in s.definitions.get("tools", ())]
    peers = peer_verdicts(python, flat)
    hits: list[tuple[str, list[str]]] = []
    n, flagged, blocks, first = ours_per_tool(servers, hits)
    for who, k, total in (("heldfast", sum(p[0] for p in peers), len(flat)),
                          ("cisco_yara", sum(p[1] for p in peers), len(flat)),
                          ("mcp_lock_flagged", flagged, n), ("mcp_lock_blocks_change", blocks, n),
                          ("mcp_lock_blocks_first_lock", first, n)):
        low, high = wilson(k, total)
        print(f"  {who:22s} {k:4d}/{total:<5d} {k / total:7.2%}  [{low:6.2%}, {high:6.2%}]")
    per_rule = Counter(rule for _label, rules in hits for rule in rules)
    print("  tools flagged per rule: " + ", ".join(f"{rule} {count}" for rule, count in sorted(per_rule.items())))
    for label, rules in hits:
        print(f"    FP {label}: {', '.join(rules)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--tuning", action="store_true", help="the tuning servers' tools only, each FP listed")
    opts = parser.parse_args()
    sys.path.insert(0, str(HERE))
    if opts.tuning:
        tuning(ensure_venv())
        return
    from adapter import bump, detections_for_new, first_lock
    from corpus import DATA, load_benign, load_examples, wilson
    from per_server import held_out

    python = ensure_venv()
    result: dict[str, Any] = {}

    def rate(k: int, n: int) -> dict[str, Any]:
        low, high = wilson(k, n)
        return {"k": k, "n": n, "rate": k / n if n else 0.0, "ci95": [low, high]}

    for name in HELD_OUT_SETS:
        examples = load_examples(DATA / name)
        defs = [e.definition for e in examples]
        peers = peer_verdicts(python, defs)
        ours_change = [any(d.blocks for d in detections_for_new("tools", e, neighbour=False)) for e in defs]
        ours_first = [any(d.blocks for d in first_lock({"tools": [e]})) for e in defs]
        result[name] = {
            "heldfast": rate(sum(p[0] for p in peers), len(defs)),
            "cisco_yara": rate(sum(p[1] for p in peers), len(defs)),
            "mcp_lock_change": rate(sum(ours_change), len(defs)),
            "mcp_lock_first_lock": rate(sum(ours_first), len(defs)),
        }
    parts = {folder: [s for s in load_benign(DATA / folder) if held_out(s.package)] for folder in FOLDERS}
    from per_server import RETIRED

    bases = {"held_out": [s for folder in FOLDERS for s in parts[folder]],
             # what is held out now: the parts the re-split of 2026-12-07 kept (`per_server.RETIRED`)
             "held_out_now": [s for folder in FOLDERS if folder not in RETIRED for s in parts[folder]],
             # the held-out parts as earlier rounds printed them: the first two, then the first four and on
             **{f"held_out_first_{word}_parts": [s for folder in FOLDERS[:n] for s in parts[folder]]
                for n, word in enumerate(_COUNTED, 2) if n != 3 and n < len(FOLDERS)},
             **{f"held_out_{folder}": parts[folder] for folder in FOLDERS[2:]}}
    for basis, servers in bases.items():
        defs_per_server = [list(s.definitions.get("tools", ())) for s in servers]
        flat = [d for defs in defs_per_server for d in defs]
        peers = peer_verdicts(python, flat)
        at, blocked_h, blocked_c = 0, 0, 0
        for defs in defs_per_server:
            verdicts = peers[at:at + len(defs)]
            at += len(defs)
            blocked_h += any(v[0] for v in verdicts)
            blocked_c += any(v[1] for v in verdicts)
        first = sum(any(d.blocks for d in first_lock(s.definitions, s.package, s.instructions)) for s in servers)
        bumped = sum(any(d.blocks for d in bump(s.definitions, s.package, s.instructions)) for s in servers)
        result[f"{basis}_servers"] = {
            "heldfast": rate(blocked_h, len(servers)), "cisco_yara": rate(blocked_c, len(servers)),
            "mcp_lock_first_lock": rate(first, len(servers)), "mcp_lock_bump": rate(bumped, len(servers)),
        }
        n, flagged, blocks, first = ours_per_tool(servers)  # n: the same tools (a pin per name; peers read each listed)
        result[f"{basis}_tool_definitions"] = {
            "heldfast": rate(sum(p[0] for p in peers), len(flat)),
            "cisco_yara": rate(sum(p[1] for p in peers), len(flat)),
            "mcp_lock_flagged": rate(flagged, n), "mcp_lock_blocks_change": rate(blocks, n),
            "mcp_lock_blocks_first_lock": rate(first, n),
        }
    for section, figures in result.items():
        print(section)
        for who, f in figures.items():
            print(f"  {who:22s} {f['k']:4d}/{f['n']:<5d} {f['rate']:7.2%}  [{f['ci95'][0]:6.2%}, {f['ci95'][1]:6.2%}]")
    if opts.json:
        opts.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
