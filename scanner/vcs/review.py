"""`check --base REF`: notes on what a pull request changed since its merge base, and `--changed-only`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import git

from scanner.diff.suspicious import is_on_pinned_text, pinned_findings
from scanner.errors import UsageError
from scanner.files.safe_read import POLICY_LIMIT
from scanner.lock.lockfile import Lockfile, LockfileError, ServerPin
from scanner.lock.reader import parse
from scanner.model.findings import Finding, LockLocation, unique
from scanner.model.rules import rule
from scanner.policy.inert import outside_inert
from scanner.policy.merge_base import Side, judge, key_lines
from scanner.policy.settings import POLICY_FILE, Policy, parse_yaml, policy_from, policy_source
from scanner.policy.values import PolicyError
from scanner.run.inert_view import hidden_for
from scanner.run.offline import check_offline
from scanner.run.operations import check
from scanner.run.outcome import Outcome
from scanner.run.shard import Shard, in_shard
from scanner.run.workspace import Options, Workspace, judge_by, read_lock, server_keys
from scanner.sources.closure import LaunchView
from scanner.sources.declarations import Server
from scanner.sources.repository_code import runs_repository_code
from scanner.transports.sandbox import OFF as SANDBOX_OFF
from scanner.vcs.affected import code_reasons, launch_reasons, manifest_reasons
from scanner.vcs.base import Worktree, changed_paths, file_at, merge_base, open_worktree
from scanner.vcs.base_views import bind_policy, closure_findings, discover_base, views_of
from scanner.vcs.package_config import package_config_findings
from scanner.vcs.pins import PINNED, PinChange, lock_changes
from scanner.vcs.repin_review import confirm_repins
from scanner.vcs.tree_review import review_trees
from scanner.vcs.weakened import weakenings


@dataclass
class Review:
    label: str  # the merge base's short sha
    findings: list[Finding]
    keys: set[str]  # every declared or pinned server, as `--shard` splits them
    messages: list[str] = field(default_factory=list)
    # Each server's launch as pinned at the merge base (none when that lock cannot be read: nothing counts
    # as reviewed), for scanner.run.withhold.
    launches: dict[str, dict[str, object]] = field(default_factory=dict)
    # The servers pinned at the merge base, likewise (scanner.run.release_check tells new packages by them).
    pins: dict[str, ServerPin] = field(default_factory=dict)
    views: dict[str, LaunchView] = field(default_factory=dict)  # each server's closure and names at the base
    touched: tuple[str, ...] = ()  # changed files outside the inert set (scanner.policy.inert)
    changed: tuple[str, ...] = ()  # every changed file but the lock: where the sandbox is off, nothing is inert
    prefix: str = ""  # the scanned folder from the git top
    envs: dict[str, dict[str, str]] = field(default_factory=dict)  # each launch's environment at the base
    trees: dict[str, str] = field(default_factory=dict)  # servers whose tree record is not the base's, and why
    # For the re-pin review (scanner.vcs.repin_review): each server as declared at the base, the lock on both
    # sides, and the base policy's `build-from-source` names.
    base_servers: dict[str, Server] = field(default_factory=dict)
    base_lock: Lockfile | None = None
    lock: Lockfile | None = None
    base_builds: frozenset[str] = frozenset()

    @property
    def edited(self) -> frozenset[str]:
        """Servers that run a file the change edits: their code is not the reviewed code."""
        return frozenset(f.server for f in self.findings if f.rule.id in ("code-changed", "dependency-changed"))

    @property
    def servers(self) -> set[str]:
        """Servers with a reason to be booted: every note names one (a finding on text pinned before the
        base is no reason: it is the same whether booted or not)."""
        return {f.server for f in self.findings if f.rule.id != "base-lock-invalid" and not is_on_pinned_text(f)}


def review(workspace: Workspace, ref: str) -> Review:
    """Every reason a declared server changed since the merge base of `ref` and HEAD, and every re-pin.

    From here on the run is judged by the base's mcp-lock.yaml and the change's tightenings of it; each
    difference of the change's file is a finding.
    """
    worktree = open_worktree(workspace.repo)
    base = merge_base(worktree, ref)
    label = base.hexsha[:7]
    policy_findings, base_policy = judge_by_base_policy(workspace, worktree, base, label)
    lockfile = read_lock(workspace)
    assert lockfile is not None
    changed = changed_paths(worktree, base)
    lock_path = worktree.rel(workspace.lock_path)
    base_bytes = file_at(base, lock_path)
    base_lock, invalid = read_base_lock(base_bytes, lock_path, label)
    before = discover_base(workspace, worktree, base, changed, base_policy, base_lock)
    views = views_of(before)
    declared = workspace.discovery.servers
    bind_policy(declared, views)
    repo_dir = workspace.repo.resolve()
    findings = launch_reasons(declared, before, label) + closure_findings(declared, before, label)
    findings += manifest_reasons(declared, changed, worktree, repo_dir, label)
    findings += code_reasons(declared, changed, worktree, repo_dir, label)
    findings += package_config_findings(changed, worktree, base, label)
    findings += repin_findings(lockfile, base_lock, invalid)
    if base_lock is not None:
        findings += weakenings(base_lock, lockfile, {s.key for s in declared}, lock_path, label)
    trees = review_trees(base_lock, lockfile, label)
    findings += trees.findings
    findings += policy_findings
    message = f"compared with {label}, the merge base of {ref} and HEAD; judged by its {POLICY_FILE}"
    launches = {key: pin.launch for key, pin in base_lock.servers.items()} if base_lock is not None else {}
    # Inert only what the sandbox hides from repository-code launches, on this tree (scanner.run.inert_view).
    touched = outside_inert(changed, worktree.prefix, lock_path, workspace.policy.inert)
    every = tuple(sorted(path for path in changed if path != lock_path))
    pins = dict(base_lock.servers) if base_lock is not None else {}
    envs = {s.key: dict(s.resolved.env) for s in before.servers if s.resolved is not None}
    return Review(
        label, findings, server_keys(workspace, lockfile), [message], launches, pins, views, tuple(touched), every,
        worktree.prefix, envs, trees.unreviewed, {s.key: s for s in before.servers}, base_lock, lockfile,
        frozenset(base_policy.builds),
    )


def read_base_lock(base_bytes: bytes | None, lock_path: str, label: str) -> tuple[Lockfile | None, Finding | None]:
    """The lock at the base (None when there is none or it cannot be read), and a finding when it cannot."""
    if base_bytes is None:
        return None, None
    try:
        return parse(base_bytes.decode("utf-8"), f"{lock_path}@{label}"), None
    except (LockfileError, UnicodeDecodeError) as error:
        message = f"the lockfile at the base cannot be read, so re-pins are not shown: {error}"
        return None, Finding(rule("base-lock-invalid"), lock_path, message, LockLocation(""))


def judge_by_base_policy(
    workspace: Workspace, worktree: Worktree, base: git.Commit, label: str
) -> tuple[list[Finding], Policy]:
    """Judge the run by mcp-lock.yaml at `base` (none there: the defaults) plus what the change tightens;
    a finding for each difference of the change's file (see scanner.policy.merge_base), and the base's own
    policy (whose inputs resolve the launches at the base)."""
    path = f"{worktree.prefix}/{POLICY_FILE}" if worktree.prefix else POLICY_FILE
    try:
        data = file_at(base, path, POLICY_LIMIT)
        at_base = parse_yaml(data, f"{POLICY_FILE} at {label}") if data is not None else None
        base_side = Side(policy_from(*at_base, workspace.environ), at_base[0] or {}) if at_base else Side(Policy(), {})
    except PolicyError as error:
        raise UsageError(f"the policy at the merge base {label} cannot be used: {error}") from None
    try:
        own = policy_source(workspace.repo)
        change = Side(policy_from(*own, workspace.environ), own[0] or {}) if own else Side(Policy(), {})
    except PolicyError as error:
        raise UsageError(str(error)) from None
    judgement = judge(base_side, change, workspace.environ)
    judge_by(workspace, judgement.policy)
    return judgement.findings(key_lines(own[1] if own else None), label), base_side.policy


def repin_findings(current: Lockfile, base: Lockfile | None, invalid: Finding | None) -> list[Finding]:
    """A note per change accepted into the lock since the base (no base lock: everything is new), and the
    detectors' findings on every text pinned or re-pinned since."""
    if invalid is not None:
        # Nothing is known to have been reviewed before: every pinned text is scanned.
        return [invalid, *pinned_text_findings(None, current)]
    return [_note(change) for change in lock_changes(base, current)] + pinned_text_findings(base, current)


def pinned_text_findings(base: Lockfile | None, current: Lockfile) -> list[Finding]:
    """The detectors over every text `current` pins: text that `base` did not pin (None: all of it) as
    `check` words a live change, so a poisoned description re-pinned inside the change blocks at its
    severity; text pinned before the base as pinned text, which blocks too until acknowledged."""
    return pinned_findings(current.servers, current.servers, base.servers if base is not None else {})


def _note(change: PinChange) -> Finding:
    if change.change == PINNED:
        message = f"{change.server}: newly {change.message}"
        return Finding(
            rule("newly-pinned"), change.server, message, LockLocation(change.pointer), details=change.details
        )
    graded = f" ({change.severity})" if change.severity else ""
    return Finding(
        rule("repin-accepted"),
        change.server,
        f"{change.server}: re-pin accepted{graded}: {change.message}",
        LockLocation(change.pointer),
        subject=change.subject,
        kind=change.kind,
        details=change.details,
    )


def check_with_base(
    workspace: Workspace,
    ref: str,
    options: Options | None,
    *,
    shard: Shard | None = None,
    changed_only: bool = False,
) -> Outcome:
    """`check` (`options` None: `check --offline`) plus the notes of `review`.

    `changed_only` boots only the servers with a note; the others keep every offline finding.
    """
    notes = review(workspace, ref)
    if options is not None and notes.trees:
        # A tree moved behind an unchanged launch: a re-pin to exactly today's resolution is reviewable, not
        # blocking (resolving is no boot, but it asks the registry: never under --offline).
        assert notes.lock is not None
        confirm_repins(
            workspace, notes.trees, notes.findings, notes.base_servers, notes.base_lock, notes.lock,
            builds=notes.base_builds, label=notes.label,
        )
    # The review rescans every pin, telling text new since the base from text pinned before it, so `check`,
    # which knows no base, does not.
    if options is None:
        outcome = check_offline(workspace, shard, rescan_pins=False)
    else:
        only = frozenset(notes.servers | runs_touched_code(workspace, notes)) if changed_only else None
        reviewed = dataclasses.replace(
            options,
            only=only,
            base_launches=notes.launches,
            edited=notes.edited,
            base_views=notes.views,
            touched=notes.touched,
            changed=notes.changed,
            prefix=notes.prefix,
            base_trees=notes.trees,
            rescan_pins=False,
        )
        outcome = check(workspace, reviewed)
        if only is not None:
            notes.messages.append(_not_booted(workspace, only, notes.label))
    outcome.findings = unique([*outcome.findings, *in_shard(notes.findings, shard, notes.keys)])
    outcome.messages = notes.messages + outcome.messages
    outcome.base_pins = notes.pins
    outcome.base_envs = notes.envs
    return outcome


def runs_touched_code(workspace: Workspace, notes: Review) -> set[str]:
    """Servers that can run repository code the change touched (scanner.run.withhold): `--changed-only` boots
    them, without their secrets, rather than skip them."""
    found: set[str] = set()
    globs = workspace.policy.inert
    for server in workspace.discovery.servers:
        if server.template is None or not runs_repository_code(server.template, workspace.repo):
            continue
        unsandboxed = workspace.policy.for_server(*server.policy_names).sandbox == SANDBOX_OFF
        hidden = hidden_for(workspace, server)
        if notes.changed if unsandboxed else outside_inert(notes.changed, notes.prefix, "", globs, hidden):
            found.add(server.key)
    return found


def _not_booted(workspace: Workspace, booted: frozenset[str], label: str) -> str:
    rest = sorted(s.key for s in workspace.discovery.servers if s.key not in booted)
    if not rest:
        return "--changed-only: every declared server changed since the base, so every one was booted"
    return f"--changed-only: not booted, nothing changed for them since {label}: {', '.join(rest)}"
