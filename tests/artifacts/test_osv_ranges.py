"""OSV `affected` ranges as the schema defines them: introduced, fixed and last_affected events."""

from __future__ import annotations

import json

from scanner.artifacts.advisories import advisory_findings
from scanner.artifacts.inventory import Package, server_packages
from scanner.artifacts.osv import affects
from scanner.lock.lockfile import ServerPin


def ranged(ecosystem: str, name: str, *events: dict[str, str]) -> dict:
    kind = "SEMVER" if ecosystem == "npm" else "ECOSYSTEM"
    return {"id": "X", "affected": [{"package": {"ecosystem": ecosystem, "name": name},
                                      "ranges": [{"type": kind, "events": list(events)}]}]}


def test_semver_range_with_a_fix() -> None:
    advisory = ranged("npm", "pkg", {"introduced": "1.2.0"}, {"fixed": "1.10.0"})
    assert affects(advisory, Package("npm", "pkg", "1.9.3"))
    assert affects(advisory, Package("npm", "pkg", "1.10.0-rc.1"))  # a pre-release of the fix is before it
    assert not affects(advisory, Package("npm", "pkg", "1.10.0"))
    assert not affects(advisory, Package("npm", "pkg", "1.1.9"))
    assert not affects(advisory, Package("npm", "other", "1.5.0"))
    assert not affects(advisory, Package("PyPI", "pkg", "1.5.0"))


def test_last_affected_and_every_version() -> None:
    advisory = ranged("PyPI", "Mcp_Server.X", {"introduced": "0"}, {"last_affected": "2.0.post1"})
    assert affects(advisory, Package("PyPI", "mcp-server-x", "2.0.post1"))  # names compare PEP 503-normalised
    assert affects(advisory, Package("PyPI", "mcp-server-x", "0.0.1"))
    assert not affects(advisory, Package("PyPI", "mcp-server-x", "2.0.1"))
    assert affects(ranged("npm", "evil", {"introduced": "0"}), Package("npm", "evil", "99.0.0"))  # a MAL- entry


def test_an_advisory_aliased_to_a_malicious_package_id_is_critical(tmp_path) -> None:
    entry = ranged("npm", "evil", {"introduced": "0"}) | {"id": "GHSA-evil", "aliases": ["MAL-2026-9"]}
    (tmp_path / "GHSA-evil.json").write_text(json.dumps(entry))
    pin = ServerPin([], {}, "", {}, {}, None, artifact={"type": "npm", "name": "evil", "version": "1.0.0"})
    (finding,) = advisory_findings(str(tmp_path), server_packages({"x": pin}))
    assert finding.subject == "GHSA-evil" and finding.effective_severity == "critical"
    assert "malicious-package" in finding.message
