"""The transport seam: one table of transports, each opened by name through its own module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import anyio
import pytest
from test_hostile import RAW_SERVER, tool

from scanner.model.transports import HTTP, SSE, STDIO, TRANSPORTS, Transport, is_local
from scanner.run.boot import boot_one
from scanner.snapshot import Snapshot
from scanner.sources.declarations import ResolvedLaunch
from scanner.sources.entry import TRANSPORTS as CLIENT_SPELLINGS
from scanner.transports.channel import (
    BootFailure,
    ChannelRequest,
    UnknownTransport,
    describe,
    open_channel,
    transport_kind,
)
from scanner.transports.probe import probe
from scanner.transports.protocol import ConnectionClosed, RpcError
from scanner.transports.stage import Stage
from scanner.transports.stdio import StderrTail

SCHEMA = Path(__file__).parents[2] / "scanner" / "lock" / "mcp-lock.schema.json"
SDK_ROOTS = ("mcp", "mcp_types", "httpx2", "pydantic")


def raw_launch(tmp_path: Path, behaviour: dict[str, object]) -> ResolvedLaunch:
    path = tmp_path / "behaviour.json"
    path.write_text(json.dumps(behaviour), encoding="utf-8")
    return ResolvedLaunch(transport=STDIO, command=sys.executable, args=(str(RAW_SERVER), str(path)))


def test_lookup_by_name() -> None:
    assert transport_kind("stdio").local and not transport_kind("stdio").heavy
    for name in ("http", "sse"):
        kind = transport_kind(name)
        assert not kind.local and kind.heavy
        assert kind.module == "scanner.transports.remote"  # the one module that imports the SDK
    assert transport_kind("stdio").module == "scanner.transports.local"


def test_unknown_transport_is_a_clear_error() -> None:
    with pytest.raises(UnknownTransport, match=r"unknown transport 'ftp' \(known: stdio, http, sse\)"):
        transport_kind("ftp")
    assert not is_local("ftp") and not is_local(None) and not is_local(["stdio"])  # lockfiles are untrusted


def test_unknown_transport_fails_the_boot_not_the_run(tmp_path: Path) -> None:
    launch = ResolvedLaunch(transport="ftp", url="ftp://example.invalid/")  # type: ignore[arg-type]
    result = anyio.run(lambda: boot_one("odd", launch, tmp_path, timeout=5))
    assert result.snapshot is None
    assert result.error == "unknown transport 'ftp' (known: stdio, http, sse)"


def test_every_place_that_names_transports_agrees_with_the_table() -> None:
    names = [kind.name for kind in TRANSPORTS]
    assert names == [STDIO, HTTP, SSE]
    assert list(get_args(Transport)) == names
    assert set(CLIENT_SPELLINGS.values()) == set(names)  # every client spelling maps onto a canonical name
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    assert defs["launch"]["properties"]["transport"]["enum"] == names
    assert [defs["stdioLaunch"]["properties"]["transport"]["const"]] == [k.name for k in TRANSPORTS if k.local]
    assert defs["remoteLaunch"]["properties"]["transport"]["enum"] == [k.name for k in TRANSPORTS if not k.local]


async def _open_and_probe(request: ChannelRequest) -> Snapshot:
    async with open_channel(request) as channel:
        return await probe(channel, request.stage)


def test_open_channel_by_name_reaches_a_real_server(tmp_path: Path) -> None:
    launch = raw_launch(tmp_path, {"pages": [[tool("a")], [tool("b")]]})
    garbage: list[str] = []
    request = ChannelRequest(launch, STDIO, tmp_path, StderrTail(), 10.0, Stage(), garbage.append)
    snapshot = anyio.run(_open_and_probe, request)
    assert [t["name"] for t in snapshot.definitions["tools"]] == ["a", "b"]
    assert garbage == []


def test_a_missing_command_is_said_by_the_transport(tmp_path: Path) -> None:
    launch = ResolvedLaunch(transport=STDIO, command="no-such-mcp-server-binary")
    stage = Stage()
    request = ChannelRequest(launch, STDIO, tmp_path, StderrTail(), 10.0, stage, print)
    with pytest.raises(BootFailure) as caught:
        anyio.run(_open_and_probe, request)
    expected = "command not found: no-such-mcp-server-binary (is it installed and on PATH?)"
    assert describe(caught.value, stage) == expected


def test_describe_says_what_went_wrong_in_one_line() -> None:
    stage = Stage()
    stage.current = "tools/list (page 2)"
    nested = ExceptionGroup("outer", [ExceptionGroup("inner", [ConnectionClosed("gone")])])
    assert describe(nested, stage) == "the server closed the connection during tools/list (page 2)"
    assert describe(BootFailure("as the transport said it"), stage) == "as the transport said it"
    assert describe(RpcError(-32601, "Method not found\nmore"), stage) == (
        "the server answered tools/list (page 2) with error -32601: Method not found"
    )
    assert describe(ValueError("bad\nsecond line"), stage) == "ValueError during tools/list (page 2): bad"


def _sdk_modules_after(code: str) -> list[str]:
    check = f"{code}\nimport sys\nprint(sorted(m for m in sys.modules if m.split('.')[0] in {SDK_ROOTS!r}))"
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1].replace("'", '"'))


def test_a_stdio_boot_imports_no_sdk_module(tmp_path: Path) -> None:
    launch = raw_launch(tmp_path, {"pages": [[tool("a")]]})
    boot = (
        "import anyio\nfrom pathlib import Path\nfrom scanner.run.boot import boot_one\n"
        "from scanner.sources.declarations import ResolvedLaunch\n"
        f"launch = ResolvedLaunch(transport='stdio', command={launch.command!r}, args={launch.args!r})\n"
        f"result = anyio.run(lambda: boot_one('s', launch, Path({str(tmp_path)!r}), timeout=20))\n"
        "assert result.snapshot is not None and result.snapshot.definitions['tools'][0]['name'] == 'a', result.error\n"
    )
    assert _sdk_modules_after(boot) == []


def test_the_sdk_is_imported_with_the_http_transport_only() -> None:
    load = "from scanner.transports.channel import load_opener, transport_kind\nload_opener(transport_kind('{}'))"
    assert _sdk_modules_after(load.format("stdio")) == []
    loaded = _sdk_modules_after(load.format("http"))
    assert "mcp.client.session" in loaded and "mcp.client.streamable_http" in loaded
