"""Every rule mcp-lock knows, registered once: id, category, default severity, summary, help and docs anchor.

Two kinds of rule share one registry. A *reported* rule is what a finding is filed under (SARIF `ruleId`,
`[rule]` in text output); they are the constants below, in the fixed order of `RULES`. A *check* is one
detector: a catalogue entry (scanner/detectors/catalogue.yaml) or a structural check module in
scanner/detectors/. Its findings are filed under the reported rule it names (`reported_as`) and quote the
check's own id, so a check is added without changing what reporters list.
"""

from __future__ import annotations

from collections.abc import Iterator

from scanner.model.kinds import KIND_BY_KEY, KINDS
from scanner.model.rule_base import HELP_BASE as HELP_BASE
from scanner.model.rule_base import SEVERITIES, Category, Rule
from scanner.model.rule_base import Severity as Severity
from scanner.model.rule_base import severity_rank as severity_rank


class Registry:
    """Rules by id in registration order; an id names one rule."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule: Rule) -> Rule:
        """Add `rule`; registering the same rule again is a no-op (a reloaded catalogue), a different one fails."""
        if rule.severity not in SEVERITIES:
            raise ValueError(f"rule {rule.id}: unknown severity {rule.severity!r}")
        if rule.reported_as is not None and self._rules.get(rule.reported_as, rule).reported_as is not None:
            raise ValueError(f"rule {rule.id}: reported as {rule.reported_as!r}, which is not a reported rule")
        known = self._rules.setdefault(rule.id, rule)
        if known != rule:
            raise ValueError(f"two different rules with id {rule.id}")
        return rule

    def __getitem__(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(tuple(self._rules.values()))

    def checks(self) -> tuple[Rule, ...]:
        """The registered checks, in registration order."""
        return tuple(rule for rule in self if rule.reported_as is not None)


REGISTRY = Registry()


def register_check(rule: Rule) -> Rule:
    """Register a detector's rule once, beside its code; its `reported_as` must name a reported rule."""
    if rule.reported_as is None:
        raise ValueError(f"check {rule.id}: says no reported rule to file its findings under")
    return REGISTRY.register(rule)


def _definition_rules() -> dict[tuple[str, str], Rule]:
    rules: dict[tuple[str, str], Rule] = {}
    for kind in KINDS:
        word, label = kind.word, kind.noun
        rules[kind.key, "added"] = Rule(
            f"{word}-added",
            Category.DRIFT,
            "high",
            f"A {label} was added that is not in the lock",
            f"The server now offers a {label} that nobody reviewed. Read its definition in the "
            f"lockfile diff after `mcp-lock update`, then commit the re-pin. More than five {label}s "
            f"added at once are one finding that lists them.",
        )
        rules[kind.key, "removed"] = Rule(
            f"{word}-removed",
            Category.DRIFT,
            "medium",
            f"A pinned {label} is no longer offered",
            f"The server stopped offering a pinned {label}. Re-pin with `mcp-lock update` once the "
            f"removal is expected. A rename (same schema, near-identical description) is reported as one "
            f"`{word}-changed` finding instead. More than five {label}s removed at once are one "
            f"finding that lists them.",
        )
        rules[kind.key, "changed"] = Rule(
            f"{word}-changed",
            Category.DRIFT,
            "high",
            f"A pinned {label}'s definition changed",
            f"The text or schema the model receives for this {label} differs from the pinned one. "
            f"Read the before/after, then re-pin with `mcp-lock update` if the change is expected.",
        )
    return rules


# By (kind lock key, "added" | "removed" | "changed").
DEFINITION_RULES: dict[tuple[str, str], Rule] = _definition_rules()


BOOT_FAILED = Rule(
    "boot-failed",
    Category.AVAILABILITY,
    "high",
    "A declared server could not be booted",
    "mcp-lock could not start the server or list its definitions, so nothing about it can be "
    "verified. Fix the cause shown, or skip the server with a reason in mcp-lock.yaml.",
)

CONFIG_ERROR = Rule(
    "config-error",
    Category.CONFIG,
    "high",
    "A config file or server declaration cannot be used",
    "The file does not parse, or the declaration is missing a field, uses an unknown transport "
    "or names a variable or input that is not set. The message says what to supply.",
)

SERVER_NOT_PINNED = Rule(
    "server-not-pinned",
    Category.DRIFT,
    "high",
    "A declared server is not in the lock",
    "Run `mcp-lock lock` to pin the new server and commit mcp-lock.json.",
)

SERVER_NOT_DECLARED = Rule(
    "server-not-declared",
    Category.DRIFT,
    "medium",
    "A pinned server is no longer declared",
    "The lock pins a server that no config file declares. Run `mcp-lock update` to drop it.",
)

LAUNCH_CHANGED = Rule(
    "launch-changed",
    Category.DRIFT,
    "high",
    "A server's launch command changed since it was pinned",
    "The command, arguments, URL or environment names differ from the pin (a version bump, for "
    "example). Run `mcp-lock update SERVER` to boot the new launch and review what it offers.",
)

ARTIFACT_CHANGED = Rule(
    "artifact-changed",
    Category.SUPPLY_CHAIN,
    "high",
    "A different package or image runs behind an unchanged launch",
    "The launch is the one pinned, but what it ran is not: another version, or the same version with "
    "another integrity hash or image digest (a re-publish, a moved tag), read from npm's, uv's or the "
    "container engine's own records after the boot. postmark-mcp 1.0.16 changed one line of code and no "
    "tool definition, so this is the finding that sees such a release. Read the package's changes, then "
    "`mcp-lock update SERVER`; pin the launch to an exact version so that it changes only in a commit.",
)

ARTIFACT_BUMPED = Rule(
    "artifact-bumped",
    Category.SUPPLY_CHAIN,
    "info",
    "What a changed launch now runs, next to what it ran",
    "Informational, beside `launch-changed`: a version bump's old and new package version and integrity "
    "hash (or image digest), read from the package manager's own records, so the review of the bump names "
    "the exact artifact that will run. `mcp-lock update SERVER` pins it.",
    blocking=False,
)

LOCAL_CODE_CHANGED = Rule(
    "local-code-changed",
    Category.SUPPLY_CHAIN,
    "info",
    "The local script a launch runs changed since it was pinned",
    "Informational: the file the launch names (`node server.js`, `python3 tools/server.py`) has another "
    "sha256 than the pin records. Its change is in the repository's own history, for review there; "
    "`mcp-lock update SERVER` records the new digest.",
    blocking=False,
)

ARTIFACT_UNRECORDED = Rule(
    "artifact-unrecorded",
    Category.SUPPLY_CHAIN,
    "info",
    "What a launch ran is not recorded in the lock, or could not be read",
    "Informational: either the lock was written before mcp-lock recorded artifacts (`mcp-lock update "
    "SERVER` records it), or this run found no package manager record of what the launch ran (a package "
    "npx took from the repository's own node_modules, a runner mcp-lock does not read), so an artifact "
    "change cannot be seen for this server this run.",
    blocking=False,
)

KNOWN_ADVISORY = Rule(
    "known-advisory",
    Category.SUPPLY_CHAIN,
    "high",
    "A pinned package version has a published advisory (malicious package or vulnerability)",
    "OSV lists an advisory affecting the npm or PyPI version the lock pins. A `MAL-` advisory is a "
    "malicious package (critical): remove the server or move to a version the advisory does not list, and "
    "treat the machines that ran it as compromised. A vulnerability has the advisory's own severity where "
    "it gives one; the finding lists the fixed versions. Accept a risk with an `ignore:` entry and a reason.",
)

ADVISORY_LOOKUP_FAILED = Rule(
    "advisory-lookup-failed",
    Category.SUPPLY_CHAIN,
    "medium",
    "The pinned package versions could not be looked up in OSV",
    "`--advisories` (or MCP_LOCK_ADVISORIES) was set, but OSV's API did not answer in time, answered an "
    "error or more than the size cap, or the export directory cannot be read. Known-bad versions were not "
    "checked this run; the message says why.",
    blocking=False,
)

INSTRUCTIONS_CHANGED = Rule(
    "instructions-changed",
    Category.DRIFT,
    "high",
    "The server's instructions to the model changed",
    "Server instructions are sent to the model with every session. Review the new text, then "
    "re-pin with `mcp-lock update`.",
)

DEFINITION_INVALID = Rule(
    "definition-invalid",
    Category.CORRECTNESS,
    "high",
    "The server listed definitions that cannot be pinned unambiguously",
    "The server listed two definitions under one name, or one without a name. Clients disagree "
    "on which one wins, so the pin would not say what the model sees.",
)

# Not drift: the definition is pinned exactly as sent, so the lock still describes the server.
SCHEMA_INVALID = Rule(
    "schema-invalid",
    Category.CORRECTNESS,
    "medium",
    "A tool's inputSchema or outputSchema is not a valid JSON Schema",
    "Checked against the draft the schema's `$schema` names, else 2020-12; references are never "
    "fetched. A client may reject or drop the tool, or let the model call it with arguments nobody "
    "validated. The tool is pinned as sent, so this does not fail `check`; reported by `lock` for "
    "every pinned tool and by `check` only for schemas new or changed since the pin. Tell the "
    "server's maintainers.",
    blocking=False,
)

SUSPICIOUS_TEXT = Rule(
    "suspicious-text",
    Category.POISONING,
    "high",
    "Text the model will read looks like an instruction aimed at it",
    "A detector from the versioned catalogue (scanner/detectors/catalogue.yaml) matched text in this "
    "server's definitions: invisible or look-alike characters, instructions hidden from the user, "
    "exfiltration, secret-file reads, instruction overrides or tool shadowing. The finding quotes the "
    "evidence with invisible characters made visible. Its severity is the detector's own. Every `check` "
    "rescans every pinned text too: a finding there says `on pinned text` (it is not drift) and fails "
    "every run until the text is fixed and re-pinned or an `ignore:` entry acknowledges it; `update` "
    "refuses to pin text with an unacknowledged finding at or above high.",
)

SERVER_INFO_CHANGED = Rule(
    "server-info-changed",
    Category.DRIFT,
    "low",
    "The server reports a different name, version, protocol or capabilities",
    "Informational: the definitions the model sees are unchanged. `mcp-lock update` records the "
    "new values.",
    blocking=False,
)

SERVER_NOTE = Rule(
    "server-note",
    Category.CORRECTNESS,
    "info",
    "The server did something a strict client may not tolerate",
    "Informational: mcp-lock noticed an oddity while listing, such as lines on stdout that are not "
    "JSON-RPC (a banner or log output). mcp-lock ignores them; a client that does not may fail to "
    "connect. Nothing is pinned from them.",
    blocking=False,
)

SERVER_SKIPPED = Rule(
    "server-skipped",
    Category.CONFIG,
    "info",
    "A server was skipped by the repo policy",
    "mcp-lock.yaml says to skip this server; it is neither booted nor verified.",
    blocking=False,
)

SECRETS_WITHHELD = Rule(
    "secrets-withheld",
    Category.CONFIG,
    "medium",
    "A launch not yet reviewed was booted without the secrets it names",
    "Values from outside the repository (caller variables interpolated into env, headers, arguments or the "
    "URL, inputs read from the environment, `env:` pass-throughs) go only to a launch identical to its pin "
    "and, under --base, to its pin at the merge base, running no file the change edits. This one is new or "
    "changed, so it was booted without them: an HTTP server's header that holds one is not sent, a stdio "
    "server's variable is not set. When it cannot list its definitions without them, its pin is checked "
    "offline (digests, detectors over the pinned text) and the live check runs after merge, on the push "
    "or nightly job, where the reviewed launch gets its secrets. Never blocks by itself.",
    blocking=False,
)

# `check --base REF`: notes for the reviewer on what the pull request changed; they never fail a run.
CHANGED_SINCE_BASE = Rule(
    "changed-since-base",
    Category.REVIEW,
    "info",
    "A server was declared, or its launch changed, since the base",
    "Reported by `check --base REF` against the merge base of REF and HEAD, at the server's "
    "declaration. `--changed-only` boots only servers with a note like this one.",
    blocking=False,
)

DEPENDENCY_CHANGED = Rule(
    "dependency-changed",
    Category.REVIEW,
    "info",
    "A package manifest a server runs from changed since the base",
    "A package.json, lockfile, pyproject.toml, requirements*.txt or similar changed in the directory "
    "the server runs from (its cwd, the repository by default) or in a directory holding its script: "
    "a dependency bump can change what the server offers even though its launch did not.",
    blocking=False,
)

CODE_CHANGED = Rule(
    "code-changed",
    Category.REVIEW,
    "info",
    "A file a server runs changed since the base",
    "A file the launch names (a script or path in its command or arguments), a file under its declared "
    "working directory, or a file of the project a named script belongs to (the nearest directory above it "
    "holding a package manifest, else the script's own directory) changed: the server may run different "
    "code although its launch did not change. `--changed-only` boots it.",
    blocking=False,
)

REPIN_ACCEPTED = Rule(
    "repin-accepted",
    Category.REVIEW,
    "info",
    "The change re-pinned a server; this is what was accepted",
    "Reported by `check --base REF` for each difference between mcp-lock.json at the merge base and "
    "now, quoting added text, so the reviewer sees what the re-pin accepted. The grade in brackets "
    "is what the change would have been while unpinned. The detectors run on the re-pinned text too, "
    "and their findings block.",
    blocking=False,
)

NEWLY_PINNED = Rule(
    "newly-pinned",
    Category.REVIEW,
    "info",
    "The change pinned a new server",
    "Reported by `check --base REF` for a server in mcp-lock.json that the merge base did not pin, "
    "listing what was pinned. The detectors run on its text too, and their findings block.",
    blocking=False,
)

BASE_LOCK_INVALID = Rule(
    "base-lock-invalid",
    Category.REVIEW,
    "medium",
    "The lockfile at the base cannot be read",
    "mcp-lock.json at the merge base does not parse or verify, so the re-pins made since cannot be "
    "shown. Review the lockfile diff by hand.",
    blocking=False,
)

POLICY_LOOSENED = Rule(
    "policy-loosened",
    Category.REVIEW,
    "high",
    "The change loosens the mcp-lock.yaml that judges it",
    "Reported by `check --base REF`: the run is judged by mcp-lock.yaml at the merge base, never by the "
    "change under review. The change's mcp-lock.yaml adds or widens an `ignore:` entry or a `skip:`, turns "
    "`sandbox` off, allows `network`, passes a new variable through `env:` or `inputs:`, lengthens a "
    "`timeout`, relaxes `unpinned-launch` or changes `client:`; the finding names the key and quotes the "
    "new value. The loosening does not apply to this run, and the finding fails it: a reviewer with the "
    "right to merge accepts it by merging, after which the new policy is the committed one. It cannot be "
    "ignored, and `--fail-on` does not let it pass.",
)

POLICY_CHANGED = Rule(
    "policy-changed",
    Category.REVIEW,
    "info",
    "The change edits mcp-lock.yaml without loosening it",
    "Reported by `check --base REF` for each difference of mcp-lock.yaml from the merge base that loosens "
    "nothing: a tightening (a removed `ignore:` entry or `skip:`, a shorter `timeout`, `sandbox: on`, "
    "`network: deny`, fewer pass-through variables), which applies to this run at once, or a neutral edit "
    "such as a reason or a literal input value, which applies too.",
    blocking=False,
)

# `mcp-lock semver`: a gate for server authors, before a release.
VERSION_BUMP_TOO_SMALL = Rule(
    "version-bump-too-small",
    Category.RELEASE,
    "high",
    "The version bump is smaller than the surface changes require",
    "Reported by `mcp-lock semver`: the server's definitions changed since the base (the newest tag by "
    "default) in a way the table of change classes says needs a larger bump than the one from the "
    "serverInfo.version at the base to the live one. The finding names each change that needs more. "
    "Below 1.0.0, Cargo's rule applies: 0.y.z → 0.(y+1).0 counts as major, 0.y.z → 0.y.(z+1) as minor, "
    "and any bump of 0.0.z as major. Its severity is high when a major bump is required, medium for "
    "minor, low for patch.",
)

VERSION_MISMATCH = Rule(
    "version-mismatch",
    Category.RELEASE,
    "medium",
    "The version the server reports differs from its package manifest",
    "Reported by `mcp-lock semver`: the live serverInfo.version is not the version in the package.json, "
    "pyproject.toml or registry server.json nearest to the server's code, so a client and the package "
    "index disagree on what was released. Read the version from the package metadata in the server.",
)

VERSION_NOT_SEMVER = Rule(
    "version-not-semver",
    Category.RELEASE,
    "medium",
    "A version is missing or is not a semantic version",
    "Reported by `mcp-lock semver`: serverInfo.version at the base or live (or a manifest version) is "
    "absent or not MAJOR.MINOR.PATCH as SemVer 2.0.0 defines it, so the bump cannot be checked.",
)

UNPINNED_LAUNCH = Rule(
    "unpinned-launch",
    Category.CONFIG,
    "medium",
    "A server is launched without an exact version or image digest",
    "`npx -y pkg`, `pkg@latest`, `uvx pkg` without `==` or a container image without `@sha256:` fetch "
    "whatever is newest when the server starts, so it changes under the repository without a commit and "
    "a pull request's check fails on upstream drift the pull request did not cause. Pin the version the "
    "message quotes; the nightly `mcp-lock check` then reports upstream releases, and a pull request's "
    "check stays about the pull request. Set `unpinned-launch: error` in mcp-lock.yaml to fail on it, "
    "or `off` to silence it.",
    blocking=False,
)

SANDBOX_BIND_REFUSED = Rule(
    "sandbox-bind-refused",
    Category.CONFIG,
    "medium",
    "A declaration asks the sandbox for a path it does not bind back",
    "The sandbox hides /tmp and /run (where service sockets such as Docker's live) and binds back only the "
    "repository, mcp-lock's installation and the folders on the caller's own PATH, and only folders and "
    "regular files among them. A declaration's `env.PATH` entry, command or working directory under /tmp or "
    "/run elsewhere, or one that is a socket or device, is not bound: the server runs without it (a refused "
    "working directory means it is not started). Move what the server needs into the repository, or install "
    "it where the caller's PATH finds it.",
)

SANDBOX_LIMIT_HIT = Rule(
    "sandbox-limit-hit",
    Category.AVAILABILITY,
    "medium",
    "A server ran into a limit of the sandbox",
    "The server tried to start more processes or threads than the per-server limit (512, the cgroup pids "
    "controller) allows, and the kernel refused the rest. A real MCP server needs a handful; one that runs "
    "into the limit is broken or is trying to exhaust the machine. Its private /tmp and /run are bounded "
    "too (`tmpfs-mib` in mcp-lock.yaml; a full one shows as 'No space left on device' in its stderr).",
)

CONFIG_WARNING = Rule(
    "config-warning",
    Category.CONFIG,
    "info",
    "A config file has something a client may reject",
    "For example comments or trailing commas in a file that a strict-JSON client reads, or a "
    "deprecated location. The server is still discovered.",
    blocking=False,
)

IGNORE_EXPIRED = Rule(
    "ignore-expired",
    Category.CONFIG,
    "medium",
    "An ignore entry in mcp-lock.yaml is past its until: date",
    "An `ignore:` entry whose `until:` date has passed (in UTC) suppresses nothing, so the findings it "
    "covered fail the run again, and the entry itself fails the run until it is renewed after a fresh "
    "review (a later `until:`) or removed: an expiry date is a promise to look again.",
)

IGNORE_UNMATCHED = Rule(
    "ignore-unmatched",
    Category.CONFIG,
    "medium",
    "An ignore entry in mcp-lock.yaml matched no finding",
    "A full `mcp-lock check` (not offline, not a shard, not --changed-only) booted the entry's server "
    "and produced no finding the entry covers: the false positive it accepted is gone. Remove the entry "
    "so that it cannot hide a real finding later. Entries for a server that failed to boot or was "
    "skipped are not judged.",
    blocking=False,
)


# The reported rules, in the fixed order reporters list them (SARIF `ruleIndex` is a position in it).
RULES: tuple[Rule, ...] = tuple(
    REGISTRY.register(rule)
    for rule in (
        BOOT_FAILED,
        CONFIG_ERROR,
        SERVER_NOT_PINNED,
        SERVER_NOT_DECLARED,
        LAUNCH_CHANGED,
        ARTIFACT_CHANGED,
        ARTIFACT_BUMPED,
        LOCAL_CODE_CHANGED,
        ARTIFACT_UNRECORDED,
        KNOWN_ADVISORY,
        ADVISORY_LOOKUP_FAILED,
        INSTRUCTIONS_CHANGED,
        DEFINITION_INVALID,
        SCHEMA_INVALID,
        SUSPICIOUS_TEXT,
        *DEFINITION_RULES.values(),
        SERVER_INFO_CHANGED,
        SERVER_NOTE,
        SERVER_SKIPPED,
        SECRETS_WITHHELD,
        CHANGED_SINCE_BASE,
        DEPENDENCY_CHANGED,
        CODE_CHANGED,
        REPIN_ACCEPTED,
        NEWLY_PINNED,
        BASE_LOCK_INVALID,
        POLICY_LOOSENED,
        POLICY_CHANGED,
        VERSION_BUMP_TOO_SMALL,
        VERSION_MISMATCH,
        VERSION_NOT_SEMVER,
        UNPINNED_LAUNCH,
        SANDBOX_BIND_REFUSED,
        SANDBOX_LIMIT_HIT,
        CONFIG_WARNING,
        IGNORE_EXPIRED,
        IGNORE_UNMATCHED,
    )
)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


def rule(rule_id: str) -> Rule:
    """The reported rule with this id, for ids that come from data; code names the constant instead."""
    return RULES_BY_ID[rule_id]


def definition_rule(kind: str, change: str) -> Rule:
    """The rule for a definition of `kind` (a lock key such as "tools") being added/removed/changed."""
    return DEFINITION_RULES[kind, change]


def kind_label(kind: str) -> str:
    return KIND_BY_KEY[kind].noun
