"""What a boot failure says beyond its one line: the step that failed (install, start, handshake, listing),
how the server exited, and a fix for the cause where one is recognised.

A boot that times out, or a launcher that exits without a word, otherwise leaves a reader with nothing to act
on; a server that needs a login looks like a broken handshake unless its own words are shown with the fix.
"""

from __future__ import annotations

import re

from scanner.run.launchers import launcher_of

INSTALL, START, HANDSHAKE, LISTING = "install", "start", "handshake", "listing"
STEP_TEXT = {
    INSTALL: "install: the launcher could not fetch or install the package, so no server started",
    START: "start: the server process did not come up to answer",
    HANDSHAKE: "handshake: the server started but did not complete `initialize`",
    LISTING: "listing: the server answered the handshake but not its listings",
}
LAUNCHED_START = (
    "install or start: {command} installs the package (on a cold runner, downloads it) before the server starts"
)
KILLED = 128 + 9  # a shell's (and bwrap's) status for a child killed by SIGKILL, as the kernel's OOM killer does
WRAPPER_FAILED = 125  # the wrapper shell's status when it could not join the per-boot cgroup

LOGIN = re.compile(
    r"\b(?:log ?in|sign ?in|authenticat\w*|unauthori[sz]ed|api[ _-]?key|access token|credentials?|oauth)\b", re.I
)
LOGIN_HINT = (
    "hint: the server asks for a login or credentials before it serves, and no one can log in during a CI run: "
    "give it a token through a variable in its declaration (`\"env\": {\"NAME\": \"${NAME}\"}`) and set NAME "
    "where mcp-lock runs, or `skip:` it in mcp-lock.yaml with a reason"
)
COLD_HINT = (
    "hint: {command} downloads and installs the package inside the server's own boot time (cold starts of 6-59 s "
    "were measured): launch it with npx or uvx and an exact version, so that mcp-lock installs its recorded tree "
    "beforehand under its own `install-timeout` and keeps it in its store; or raise `timeout:` for this server "
    "in mcp-lock.yaml on the default branch (a pull request cannot raise it)"
)
SLOW_HINT = (
    "hint: if the server is only slow to start, raise `timeout:` for it in mcp-lock.yaml on the default branch "
    "(a pull request cannot raise it); a server that waits for input (a prompt, a login) never answers: its "
    "stderr above says what it waits for"
)
SILENT_HINT = (
    "hint: the server exited (code {code}) without a word on stderr: run its command yourself in the repository, "
    "with the variables it declares, to see why"
)


def failed_step(error: str, command: str | None, launcher_failed: bool) -> str:
    if launcher_failed:
        return INSTALL
    if "/list" in error or "prompts/get" in error or "across its pages" in error or "definitions per server" in error:
        return LISTING
    if "handshake" in error or "server/discover" in error:
        return HANDSHAKE
    return START


def advice(
    command: str | None, error: str, stderr: str, exit_code: int | None, launcher_failed: bool, limited: str = ""
) -> list[str]:
    """The step line, then the first fix that fits, for a boot that failed with `error`; `limited` is the
    sandbox's own message when it stopped the server at a limit."""
    step = failed_step(error, command, launcher_failed)
    launcher = launcher_of(command)
    name = (command or "").rsplit("/", 1)[-1]
    timed_out = error.startswith("timed out")
    # Until the server answers, a launcher may still be installing: the step cannot be told apart.
    installing = launcher and (step == START or (step == HANDSHAKE and timed_out))
    shown = LAUNCHED_START.format(command=name) if installing else STEP_TEXT[step]
    if exit_code == WRAPPER_FAILED and not stderr.strip():
        shown += "; the sandbox wrapper could not start it (exit code 125)"
    elif exit_code is not None:
        killed = " (killed by SIGKILL)" if exit_code in (KILLED, -9) else ""
        who = f"`{name}`" if step == INSTALL else "the server"
        shown += f"; {who} exited with code {exit_code}{killed}"
    lines = [f"failed at: {shown}"]
    if limited:
        lines.append(f"hint: {limited}")
    elif LOGIN.search(stderr):
        lines.append(LOGIN_HINT)
    elif timed_out and launcher and step in (START, HANDSHAKE):
        lines.append(COLD_HINT.format(command=name))
    elif timed_out:
        lines.append(SLOW_HINT)
    elif exit_code is not None and not stderr.strip() and not launcher_failed:
        lines.append(SILENT_HINT.format(code=exit_code))
    return lines
