"""Loading the benchmark corpora, and the Wilson score interval used to report them.

* `data/benign/*.json[.gz]`: definitions dumped from real servers by `dump_benign.py`.
* `data/positives/<class>.yaml`: self-written poisoned definitions, one attack class per file.
* `data/positives_heldout/<class>.yaml`: more of them, written before tuning and kept out of it.
* `data/hard_negatives/*.yaml`: self-written benign definitions phrased like attacks.

A YAML item is a mapping with `id`, `definition` (a full tool definition: name, description,
inputSchema) and optionally `lang`, `style`, `inspired_by`, `note`.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
KINDS = ("tools", "prompts", "resources", "resourceTemplates")


class CorpusError(ValueError):
    pass


@dataclass(frozen=True)
class BenignServer:
    package: str
    version: str
    ecosystem: str
    definitions: dict[str, list[dict[str, Any]]]  # kind -> definitions, as pinned
    instructions: str | None = None  # the initialize result's instructions, which the model reads too

    @property
    def label(self) -> str:
        return f"{self.package}@{self.version}"


@dataclass(frozen=True)
class Example:
    id: str
    group: str  # the attack class (positives) or the file stem (hard negatives)
    definition: dict[str, Any]
    lang: str = "en"
    style: str = ""
    inspired_by: str = ""


def load_benign(folder: Path = DATA / "benign") -> list[BenignServer]:
    servers = []
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]):
        if path.name == "failures.json":
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
        try:
            definitions = {kind: list(doc[kind]) for kind in KINDS}
            instructions = doc.get("instructions")
            servers.append(BenignServer(doc["package"], doc["version"], doc["ecosystem"], definitions,
                                        instructions if isinstance(instructions, str) else None))
        except (KeyError, TypeError) as e:
            raise CorpusError(f"{path.name}: missing {e}") from None
    return servers


def load_examples(folder: Path) -> list[Example]:
    """Every item of every YAML file in `folder`, checked to be a usable tool definition."""
    import yaml

    examples: list[Example] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.yaml")):
        items = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(items, list):
            raise CorpusError(f"{path.name}: expected a list of examples")
        for index, item in enumerate(items):
            example = _example(item, path.stem, f"{path.name}[{index}]")
            if example.id in seen:
                raise CorpusError(f"{path.name}: duplicate id {example.id}")
            seen.add(example.id)
            examples.append(example)
    return examples


def _example(item: Any, group: str, where: str) -> Example:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise CorpusError(f"{where}: needs an id")
    definition = item.get("definition")
    if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
        raise CorpusError(f"{where} ({item['id']}): definition needs a name")
    if not isinstance(definition.get("inputSchema"), dict) or "description" not in definition:
        raise CorpusError(f"{where} ({item['id']}): definition needs description and inputSchema")
    return Example(item["id"], group, definition, str(item.get("lang", "en")), str(item.get("style", "")),
                   str(item.get("inspired_by", "")))


def iter_definitions(server: BenignServer) -> Iterator[tuple[str, dict[str, Any]]]:
    for kind in KINDS:
        for definition in server.definitions[kind]:
            yield kind, definition


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval (95% by default) for a proportion; (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    return max(0.0, (centre - margin) / denominator), min(1.0, (centre + margin) / denominator)
