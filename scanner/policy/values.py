"""The values of mcp-lock.yaml, one checker per kind of value: each returns the value as the policy holds it or
raises PolicyError naming where it is and what is allowed (scanner.policy.settings reads the file with them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scanner.files.safe_yaml import shown

NETWORK_MODES = ("allow", "deny")  # scanner.transports.isolation.ALLOW / DENY
SANDBOX_MODES = ("on", "off")  # scanner.transports.sandbox.ON / OFF
UNPINNED_LAUNCH_MODES = ("warn", "error", "off")
MIN_MEMORY_MIB = 16  # below this not even an interpreter starts: a typo, not a limit
WITHHELD_BOOT_MODES = ("block", "note")
DEFAULT_MIN_RELEASE_AGE = 7  # days: the malicious MCP releases seen so far were reported within nine


class PolicyError(Exception):
    """The policy file cannot be used; the message says where and why."""


def unpinned_launch(value: Any, where: str) -> str:
    if value is None:
        return "warn"
    if value is False:  # YAML 1.1 reads a bare off as false
        return "off"
    if value not in UNPINNED_LAUNCH_MODES:
        raise PolicyError(f"{where}: unpinned-launch must be warn, error or off, got {shown(value)}")
    return str(value)


def globs(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PolicyError(f"{where}: inert must be a list of path globs, e.g. inert: [\"site/**\"]")
    return tuple(value)


def withheld_boot(value: Any, where: str) -> str:
    if value is None:
        return "block"
    if value not in WITHHELD_BOOT_MODES:
        raise PolicyError(f"{where}: withheld-boot-failure must be block or note, got {shown(value)}")
    return str(value)


def as_mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PolicyError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def known_keys(mapping: dict[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(str(k) for k in mapping if k not in known)
    if unknown:
        raise PolicyError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def timeout(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise PolicyError(f"{where}: timeout must be a positive number of seconds")
    return float(value)


def mib(value: Any, where: str, key: str, low: int = 1) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 1 << 20):
        raise PolicyError(f"{where}: {key} must be a whole number of MiB from {low} to 1048576")
    return value


def min_release_age(value: Any, where: str) -> int:
    if value is None:
        return DEFAULT_MIN_RELEASE_AGE
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3650:
        raise PolicyError(f"{where}: min-release-age must be a whole number of days from 0 to 3650, got {shown(value)}")
    return value


def network(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if value not in NETWORK_MODES:  # YAML reads a bare `no` or `off` as false: say what is wanted
        raise PolicyError(f"{where}: network must be allow or deny, got {shown(value)}")
    return str(value)


def sandbox(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):  # YAML 1.1 reads a bare on/off as true/false
        return "on" if value else "off"
    if value not in SANDBOX_MODES:
        raise PolicyError(f"{where}: sandbox must be on or off, got {shown(value)}")
    return str(value)


def client(value: Any, where: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not (isinstance(value, dict) and set(value) == {"name", "version"}):
        raise PolicyError(f"{where}: client must be a mapping with exactly name and version")
    if not all(isinstance(v, str | int | float) and not isinstance(v, bool) and str(v) for v in value.values()):
        raise PolicyError(f"{where}: client name and version must be non-empty strings")
    return {"name": str(value["name"]), "version": str(value["version"])}


def names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"{where}: env must be a list of environment variable names")
    return tuple(value)


def inputs(value: Any, where: str, environ: Mapping[str, str]) -> dict[str, str]:
    """Input values; `{env: NAME}` entries are read now and left out when NAME is unset."""
    if value is None:
        return {}
    resolved: dict[str, str] = {}
    for key, spec in as_mapping(value, f"{where}: inputs").items():
        if isinstance(spec, str | int | float) and not isinstance(spec, bool):
            resolved[str(key)] = str(spec)
        elif isinstance(spec, dict) and set(spec) == {"env"} and isinstance(spec["env"], str):
            if spec["env"] in environ:
                resolved[str(key)] = environ[spec["env"]]
        else:
            raise PolicyError(f"{where}: inputs.{key} must be a string or {{env: VARIABLE_NAME}}")
    return resolved
