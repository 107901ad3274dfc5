"""mcp-lock's own JSON-RPC client for stdio servers: what it sends, and what it does with odd answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixture_repo import Repo
from test_hostile import add_raw, tool
from test_policy import write_policy

from scanner.transports import protocol
from scanner.transports.clients import CHECKER_INFO


def received(path: Path) -> list[dict[str, Any]]:
    """The messages of the first listing (the second, as a checker, follows its own `initialize`)."""
    messages = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    again = [i for i, m in enumerate(messages) if m.get("method") == "initialize"][1:]
    assert again and "mcp-inspector" in json.dumps(messages[again[0]])
    return messages[: again[0]]


def test_handshake_and_listing_on_the_wire(repo: Repo, tmp_path: Path) -> None:
    inbound = tmp_path / "in.jsonl"
    add_raw(repo, "raw", {"pages": [[tool("a")], [tool("b")]], "record_in": str(inbound)})
    write_policy(repo, "sandbox: off\n")  # the server records outside the repository: unsandboxed only
    assert repo.run("lock").exit_code == 0
    messages = received(inbound)
    methods = [m.get("method") for m in messages]
    assert methods == ["initialize", "notifications/initialized", "tools/list", "tools/list"]
    initialize, initialized, first, second = messages
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert initialize["params"] == {  # as Claude Code, which declares .mcp.json, sends it
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {}},
        "clientInfo": protocol.CLIENT_INFO,
    }
    assert "id" not in initialized
    assert [type(m["id"]) for m in (initialize, first, second)] == [int, int, int]
    assert len({initialize["id"], first["id"], second["id"]}) == 3
    assert "params" not in first  # no cursor yet: no params, as the SDK sends it
    assert second["params"] == {"cursor": "1"}


def test_modern_requests_carry_the_envelope(repo: Repo, tmp_path: Path) -> None:
    inbound = tmp_path / "in.jsonl"
    add_raw(repo, "modern", {"pages": [[tool("a")]], "modern_only": True, "record_in": str(inbound)})
    write_policy(repo, "sandbox: off\n")  # the server records outside the repository: unsandboxed only
    assert repo.run("lock").exit_code == 0
    messages = received(inbound)
    assert [m["method"] for m in messages] == ["initialize", "server/discover", "tools/list"]
    for message in messages[1:]:
        assert message["params"]["_meta"] == protocol.modern_envelope("2026-07-28", protocol.CLIENT_INFO, {"roots": {}})


def test_answers_server_requests_and_ignores_notifications(repo: Repo, tmp_path: Path) -> None:
    inbound = tmp_path / "in.jsonl"
    chatter = [
        {"jsonrpc": "2.0", "id": "srv-1", "method": "ping"},
        {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {"messages": []}},
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
    ]
    # Before the initialize answer: each reply is written before the next line is read, so the server has
    # them (and records them) before it is asked for tools/list and, once that is answered, killed.
    add_raw(repo, "chatty", {"pages": [[tool("a")]], "interject": {"initialize": chatter}, "record_in": str(inbound)})
    write_policy(repo, "sandbox: off\n")  # the server records outside the repository: unsandboxed only
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert list(repo.lock_json()["servers"]["chatty"]["tools"]) == ["a"]
    answers = {m["id"]: m for m in received(inbound) if "method" not in m}
    assert answers["srv-1"] == {"jsonrpc": "2.0", "id": "srv-1", "result": {}}
    assert answers[7]["error"]["code"] == protocol.METHOD_NOT_FOUND
    assert "not JSON-RPC" not in result.output  # requests and notifications are JSON-RPC


def test_stray_answers_and_non_messages_are_ignored_and_counted(repo: Repo) -> None:
    stray = [
        {"jsonrpc": "2.0", "id": 999, "result": {"tools": [tool("forged")]}},  # answers nothing we asked
        "[1, 2, 3]",
        {"jsonrpc": "1.0", "id": "x", "result": {}},
        {"jsonrpc": "2.0", "note": "neither method nor id"},
    ]
    forged_handshake = {"jsonrpc": "2.0", "id": True, "result": {"forged": 1}}  # true is not request 1
    interject = {"tools/list": stray, "initialize": [forged_handshake]}
    add_raw(repo, "stray", {"pages": [[tool("a")]], "interject": interject})
    result = repo.run("lock")
    assert result.exit_code == 0, result.output
    assert list(repo.lock_json()["servers"]["stray"]["tools"]) == ["a"]
    assert "ignored 3 line(s) on stdout that are not JSON-RPC" in result.output


def test_malformed_answer_fails_its_request_at_once(repo: Repo) -> None:
    bad_result = {"jsonrpc": "2.0", "id": "ID", "result": ["not", "an", "object"]}
    bad_error = {"jsonrpc": "2.0", "id": "ID", "error": "no code"}
    add_raw(repo, "listless", {"pages": [[tool("a")]], "interject": {"tools/list": [bad_result]}})
    add_raw(repo, "codeless", {"pages": [[tool("a")]], "interject": {"initialize": [bad_error]}})
    result = repo.run("lock", "--timeout", "60")
    assert result.exit_code != 0
    assert (
        "listless: could not be booted: the server answered tools/list (page 1) with error -32700: mcp-lock could "
        "not parse the response: a response whose result is not a JSON object"
    ) in " ".join(result.output.split())
    assert "mcp-lock could not parse the response: an error response without an integer code and a message" in (
        " ".join(result.output.split())
    )
    assert "timed out" not in result.output


def test_error_answer_is_reported_with_its_code(repo: Repo) -> None:
    refusal = {"jsonrpc": "2.0", "id": "ID", "error": {"code": -32603, "message": "database offline"}}
    add_raw(repo, "broken", {"pages": [[tool("a")]], "interject": {"tools/list": [refusal]}})
    result = repo.run("lock")
    assert result.exit_code != 0
    assert "the server answered tools/list (page 1) with error -32603: database offline" in result.output


def test_protocol_constants_match_the_sdk() -> None:
    """protocol.py copies these to avoid importing the SDK; an SDK upgrade that changes one must fail here."""
    import mcp_types
    from mcp_types import version

    assert protocol.HANDSHAKE_VERSION == version.LATEST_HANDSHAKE_VERSION
    assert tuple(version.MODERN_PROTOCOL_VERSIONS) == protocol.MODERN_VERSIONS
    assert protocol.UNSUPPORTED_PROTOCOL_VERSION == mcp_types.UNSUPPORTED_PROTOCOL_VERSION
    assert protocol.PARSE_ERROR == mcp_types.PARSE_ERROR
    assert protocol.METHOD_NOT_FOUND == mcp_types.METHOD_NOT_FOUND
    assert protocol.PROTOCOL_VERSION_META_KEY == mcp_types.PROTOCOL_VERSION_META_KEY
    assert protocol.CLIENT_INFO_META_KEY == mcp_types.CLIENT_INFO_META_KEY
    assert protocol.CLIENT_CAPABILITIES_META_KEY == mcp_types.CLIENT_CAPABILITIES_META_KEY
    assert protocol.SERVER_INFO_META_KEY == mcp_types.SERVER_INFO_META_KEY


def test_the_second_listing_names_its_own_client_on_every_modern_request(repo: Repo, tmp_path: Path) -> None:
    # 2026-07-28: a server sees who asks on every request (`_meta` clientInfo). The second listing over the same
    # connection names the checker on each of its requests, never the first client it follows.
    inbound = tmp_path / "in.jsonl"
    add_raw(repo, "modern", {"pages": [[tool("a")]], "modern_only": True, "record_in": str(inbound)})
    write_policy(repo, "sandbox: off\n")  # the server records outside the repository: unsandboxed only
    assert repo.run("lock").exit_code == 0
    messages = [json.loads(line) for line in inbound.read_text(encoding="utf-8").splitlines()]
    first = received(inbound)
    second = messages[len(first):]
    assert [m["method"] for m in second][:3] == ["initialize", "server/discover", "tools/list"]
    assert second[0]["params"]["clientInfo"] == CHECKER_INFO
    for message in second:
        assert message["params"]["_meta"][protocol.CLIENT_INFO_META_KEY] == CHECKER_INFO, message["method"]


def test_the_sdk_channel_names_the_client_it_is_told_to_on_every_modern_request() -> None:
    # The HTTP channel (the SDK's session) stamps every modern request with a clientInfo: `present` changes it.
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession

    from scanner.transports.remote import SdkChannel

    def stamped(session: ClientSession) -> Any:
        data: dict[str, Any] = {"method": "tools/list", "params": {}}
        session._stamp(data, {})  # type: ignore[arg-type]
        return data["params"]["_meta"][protocol.CLIENT_INFO_META_KEY]

    async def main() -> None:
        send, read = anyio.create_memory_object_stream[Any](1)
        session = ClientSession(read, send, client_info=types.Implementation(**protocol.CLIENT_INFO))
        channel = SdkChannel(session)
        channel.present(protocol.CLIENT_INFO)
        channel.adopt_modern("2026-07-28", {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                                            "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}})
        assert stamped(session) == protocol.CLIENT_INFO
        channel.present(CHECKER_INFO)
        assert stamped(session) == CHECKER_INFO

    anyio.run(main)
