"""Hostile repository files: the lockfile, the policy, config files and `{file:…}` are read only as regular files
inside the repository, bounded in size; the lock is refused unless its bytes are its canonical rendering."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_repo import Repo

from scanner.files import safe_read
from scanner.files.safe_read import LOCK_LIMIT, RefusedFile, read_regular
from scanner.sources.interpolate import Context, InterpolationError, resolve

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
CREDENTIALS = f"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = {SECRET}\n"


@pytest.fixture(scope="module")
def canonical_lock(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(`.mcp.json`, `mcp-lock.json`) of a repo with one pinned fixture server: booted once for the module."""
    repo = Repo(tmp_path_factory.mktemp("pinned"))
    repo.add_stdio("notes")
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    return (repo.root / ".mcp.json").read_text(encoding="utf-8"), repo.lock_path.read_text(encoding="utf-8")


@pytest.fixture
def pinned(repo: Repo, canonical_lock: tuple[str, str]) -> Repo:
    """`repo` declaring and pinning the fixture server (specs are not needed: nothing here boots it)."""
    (repo.root / ".mcp.json").write_text(canonical_lock[0], encoding="utf-8")
    repo.lock_path.write_text(canonical_lock[1], encoding="utf-8")
    return repo


def outside(repo: Repo, name: str, text: str | None = None) -> Path:
    """A path beside the repository (in the test's tmp folder), written when `text` is given."""
    path = repo.root.parent / "victim" / name
    path.parent.mkdir(exist_ok=True)
    if text is not None:
        path.write_text(text, encoding="utf-8")
    return path


def cli(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess with a timeout: a FIFO or a device would otherwise hang the test run."""
    return subprocess.run(
        [sys.executable, "-m", "scanner", *args, "--repo", str(repo.root)],
        capture_output=True, text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"},
    )


# --- the lockfile: symlinks, devices, FIFOs, size ---


def test_a_dangling_lock_symlink_is_an_error_and_lock_never_writes_through_it(pinned: Repo) -> None:
    target = outside(pinned, ".bashrc")
    pinned.lock_path.unlink()
    pinned.lock_path.symlink_to(Path("..") / "victim" / ".bashrc")
    offline = pinned.run("check", "--offline")
    assert offline.exit_code == 2, offline.output
    assert "mcp-lock.json: cannot be read: a symbolic link that leads outside the repository" in offline.output
    assert "no lockfile" not in offline.output
    locked = pinned.run("lock")
    assert locked.exit_code == 2, locked.output
    assert not target.exists()
    assert pinned.lock_path.is_symlink()


def test_a_dangling_symlink_inside_the_repository_is_not_a_missing_lock(pinned: Repo) -> None:
    pinned.lock_path.unlink()
    pinned.lock_path.symlink_to("pins/mcp-lock.json")
    result = pinned.run("lock")
    assert result.exit_code == 2, result.output
    assert "mcp-lock.json: cannot be read: a symbolic link to a file that does not exist" in result.output
    assert not (pinned.root / "pins").exists()


def test_a_lock_linked_to_a_file_outside_is_neither_read_nor_quoted_nor_overwritten(pinned: Repo) -> None:
    target = outside(pinned, "credentials", CREDENTIALS)
    pinned.lock_path.unlink()
    pinned.lock_path.symlink_to(target)
    for args in (("check", "--offline"), ("update", "--rerender"), ("lock",)):
        result = pinned.run(*args)
        assert result.exit_code == 2, result.output
        assert "a symbolic link that leads outside the repository" in result.output
        assert SECRET not in result.output and "AKIA" not in result.output
    assert target.read_text(encoding="utf-8") == CREDENTIALS


def test_a_lock_linked_inside_the_repository_is_read_but_not_written_through(pinned: Repo) -> None:
    real = pinned.root / "pins" / "mcp-lock.json"
    real.parent.mkdir()
    pinned.lock_path.rename(real)
    pinned.lock_path.symlink_to("pins/mcp-lock.json")
    assert pinned.run("check", "--offline").exit_code == 0
    before = real.read_text(encoding="utf-8")
    result = pinned.run("update", "--rerender")
    assert result.exit_code == 2, result.output
    assert "mcp-lock.json: not written: a symbolic link (mcp-lock writes only a regular file)" in result.output
    assert real.read_text(encoding="utf-8") == before and pinned.lock_path.is_symlink()


def test_a_lock_linked_to_dev_zero_is_refused_without_reading_it(pinned: Repo) -> None:
    pinned.lock_path.unlink()
    pinned.lock_path.symlink_to("/dev/zero")
    result = cli(pinned, "check", "--offline")
    assert result.returncode == 2, result.stderr
    assert "mcp-lock.json: cannot be read: a symbolic link that leads outside the repository" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_a_fifo_lock_is_refused_without_blocking(pinned: Repo) -> None:
    pinned.lock_path.unlink()
    os.mkfifo(pinned.lock_path)
    result = cli(pinned, "check", "--offline")  # the timeout fails the test if opening it blocks
    assert result.returncode == 2, result.stderr
    assert "mcp-lock.json: cannot be read: not a regular file (a FIFO)" in result.stderr


def test_devices_are_refused_even_inside_the_root() -> None:
    with pytest.raises(RefusedFile, match="not a regular file \\(a character device\\)"):
        read_regular(Path("/dev/zero"), Path("/dev"), "zero", 10)


def test_an_oversized_lock_is_refused_before_it_is_read(pinned: Repo) -> None:
    with pinned.lock_path.open("r+b") as handle:  # sparse: 90 MB of holes after a real lock's bytes
        handle.truncate(90 * safe_read.MiB)
    result = pinned.run("check", "--offline")
    assert result.exit_code == 2, result.output
    assert f"mcp-lock.json: cannot be read: larger than {LOCK_LIMIT // safe_read.MiB} MiB" in result.output


def test_reading_stops_at_the_cap_whatever_the_size_said() -> None:
    class Endless:
        """A file that never ends (as /dev/zero, or one growing after fstat); counts what was read."""

        given = 0

        def read(self, size: int) -> bytes:
            self.given += size
            return b"0" * size

    endless = Endless()
    with pytest.raises(RefusedFile, match="larger than 1 MiB"):
        safe_read._read_capped(endless, "f", safe_read.MiB)  # type: ignore[arg-type]
    assert endless.given == safe_read.MiB + 1


# --- canonical bytes ---


def escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


@pytest.mark.parametrize("command", [("check", "--offline"), ("check",)])
@pytest.mark.parametrize("rewrite", ["unicode-escaped description", "minified"])
def test_a_lock_not_in_canonical_form_is_refused_and_rerender_restores_it(
    pinned: Repo, canonical_lock: tuple[str, str], command: tuple[str, ...], rewrite: str
) -> None:
    canonical = canonical_lock[1]
    if rewrite == "minified":
        text = json.dumps(json.loads(canonical), separators=(",", ":"), ensure_ascii=False)
        line = 1
    else:
        description = '"Add a note to the notebook."'
        assert description in canonical
        text = canonical.replace(description, '"' + escaped("Add a note to the notebook.") + '"')
        line = canonical[: canonical.index(description)].count("\n") + 1
    pinned.lock_path.write_text(text, encoding="utf-8")
    result = pinned.run(*command)  # live check too: refused before anything boots
    assert result.exit_code == 2, result.output
    assert (
        f"mcp-lock.json:{line}: not in canonical form (line {line} differs from the canonical rendering of its"
        " content); if you trust its content, re-render it with `mcp-lock update --rerender`"
    ) in result.output
    rerendered = pinned.run("update", "--rerender")
    assert rerendered.exit_code == 0, rerendered.output
    assert "re-rendered mcp-lock.json in canonical form" in rerendered.output
    assert pinned.lock_path.read_text(encoding="utf-8") == canonical
    assert pinned.run("check", "--offline").exit_code == 0


def test_rerender_refuses_a_lock_whose_digests_do_not_verify(pinned: Repo, canonical_lock: tuple[str, str]) -> None:
    tampered = canonical_lock[1].replace("Add a note to the notebook.", "Add a note, then mail it out.")
    pinned.lock_path.write_text(tampered, encoding="utf-8")
    result = pinned.run("update", "--rerender")
    assert result.exit_code == 2, result.output
    assert "recorded digest does not match the definition" in result.output
    assert pinned.lock_path.read_text(encoding="utf-8") == tampered


def test_rerender_takes_no_server_names(pinned: Repo) -> None:
    result = pinned.run("update", "--rerender", "notes")
    assert result.exit_code == 2 and "name no server" in result.output


# --- the policy file ---


def test_a_policy_linked_outside_the_repository_is_refused_unquoted(pinned: Repo) -> None:
    (pinned.root / "mcp-lock.yaml").symlink_to(outside(pinned, "credentials", CREDENTIALS))
    result = pinned.run("check", "--offline")
    assert result.exit_code == 2, result.output
    assert "mcp-lock.yaml: cannot be read: a symbolic link that leads outside the repository" in result.output
    assert SECRET not in result.output and "AKIA" not in result.output


def test_a_yaml_error_names_the_position_and_never_quotes_the_file(pinned: Repo) -> None:
    (pinned.root / "mcp-lock.yaml").write_text(CREDENTIALS, encoding="utf-8")
    result = pinned.run("check", "--offline")
    assert result.exit_code == 2, result.output
    assert "mcp-lock.yaml: invalid YAML at line 2, column 1:" in result.output
    assert SECRET not in result.output and "AKIA" not in result.output and "aws_" not in result.output


def test_a_yaml_tag_from_the_file_is_not_quoted(pinned: Repo) -> None:
    (pinned.root / "mcp-lock.yaml").write_text(f"timeout: !{SECRET[:20]} 3\n", encoding="utf-8")
    result = pinned.run("check", "--offline")
    assert result.exit_code == 2, result.output
    assert "invalid YAML at line 1" in result.output and SECRET[:20] not in result.output


def test_a_fifo_policy_is_refused_without_blocking(pinned: Repo) -> None:
    os.mkfifo(pinned.root / "mcp-lock.yaml")
    result = cli(pinned, "check", "--offline")
    assert result.returncode == 2, result.stderr
    assert "mcp-lock.yaml: cannot be read: not a regular file (a FIFO)" in result.stderr


# --- config files and {file:…} ---


def test_a_config_file_linked_outside_the_repository_is_not_read(repo: Repo) -> None:
    declared = {"mcpServers": {"elsewhere": {"command": "node", "args": ["server.js"]}}}
    (repo.root / ".mcp.json").symlink_to(outside(repo, "mcp.json", json.dumps(declared)))
    result = repo.run("list")
    assert result.exit_code == 2, result.output
    assert "cannot read .mcp.json: a symbolic link that leads outside the repository" in result.output
    assert "elsewhere" not in result.output


def opencode(repo: Repo, command: list[str]) -> None:
    config = {"mcp": {"tool": {"type": "local", "command": command}}}
    (repo.root / "opencode.json").write_text(json.dumps(config), encoding="utf-8")


def test_file_placeholder_on_dev_zero_is_refused_quickly(repo: Repo) -> None:
    opencode(repo, ["node", "server.js", "{file:/dev/zero}"])
    result = cli(repo, "list")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "{file:/dev/zero} is not read: outside the repository" in result.stdout


@pytest.mark.parametrize(
    ("ref", "reason"),
    [
        ("../victim/credentials", "outside the repository"),
        ("~/credentials", "outside the repository"),
        ("link", "a symbolic link that leads outside the repository"),
    ],
)
def test_file_placeholder_reads_nothing_outside_the_repository(repo: Repo, ref: str, reason: str) -> None:
    secret = outside(repo, "credentials", CREDENTIALS)
    (repo.root / "link").symlink_to(secret)
    ctx = Context(environ={"HOME": str(secret.parent)}, workspace=repo.root)
    with pytest.raises(InterpolationError) as error:
        resolve(f"Bearer {{file:{ref}}}", "opencode", ctx)
    assert f"{{file:{ref}}} is not read: {reason}" in str(error.value)
    assert SECRET not in str(error.value)


def test_file_placeholder_still_reads_a_regular_file_in_the_repository(repo: Repo) -> None:
    (repo.root / "key.txt").write_text("token-123\n", encoding="utf-8")
    (repo.root / "alias").symlink_to("key.txt")
    ctx = Context(environ={}, workspace=repo.root)
    assert resolve("{file:key.txt} {file:alias}", "opencode", ctx) == "token-123 token-123"


# --- list escapes like every other command ---


def test_list_escapes_names_and_paths(repo: Repo) -> None:
    forged = "a\n::error title=forged::all clear"
    declared = {"mcpServers": {forged: {"command": "node", "args": ["x.js", "##[error]y"]}}}
    (repo.root / ".mcp.json").write_text(json.dumps(declared), encoding="utf-8")
    result = cli(repo, "list")
    for line in (result.stdout + result.stderr).splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line
    assert "a\\n::error title=forged::all clear" in result.stdout
