"""MCPL-D024: a parameter that asks for the user's secrets or the assistant's own context, off the tool's job.

A weather tool has no use for the user's password, the conversation so far, or the output of `env`; a tool
that asks for them in its schema gets them from a model that fills in what it is told. The parameter must
name such data as someone's (the user's, yours, the contents or output of...), and the tool's own name and
description must not be about that kind of data: a login tool may ask for a password.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from scanner.detectors.checks import definition_finding, server_check
from scanner.detectors.lazy_re import lazy
from scanner.detectors.prefilter import FOLD_ASCII
from scanner.detectors.texts import changed_tools
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import WORDING, Finding
from scanner.model.pointer import escape
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D024",
    Category.POISONING,
    "high",
    "A parameter asks for the user's secrets or the assistant's context, unrelated to the tool",
    "A property of the tool's input schema asks for someone's credentials (passwords, keys, tokens, "
    "cookies, banking data), for the assistant's own context (its system prompt or instructions, the "
    "conversation, other tools' outputs) or for private data (contacts, inbox, open files, `env`), while "
    "the tool's name and description are about something else. Models fill such parameters in, which "
    "makes the schema an exfiltration channel (out-of-scope parameters). Measured: fires on 1 of 5,277 real "
    "benign definitions (bench/detectors/README.md).",
    reported_as=SUSPICIOUS_TEXT.id,
)

# kind of data -> (what the parameter asks for, words of a tool whose job is that kind of data)
KINDS: dict[str, tuple[str, str]] = {
    "credentials": (
        r"passw\w*|contraseñ\w*|kennw\w*|mot de passe|密码|パスワード|비밀번호|пароль\w*|api[ _-]?keys?|secret keys?"
        r"|private[ _-]?keys?|ssh[ _-]?keys?|~/\.ssh|id_rsa|\.env\b|cookies?|oauth[ _-]?tokens?|(?:login|session|access"
        r"|auth|bearer|refresh|github|wechat|slack|discord|google)[ _-]?tokens?|令牌|トークン|토큰|токен\w*"
        r"|\bpin\b|\biban\b|card[ _-]?numbers?|\bcvv\b|seed[ _-]?phrase|mnemonic|credentials?|bank(?:ing)?[ _-]?login"
        r"|online-banking|zugangsdaten",
        r"passw|token|auth|login|sign[ -]?in|credential|secret|oauth|ssh|cookie|session|account|bank|wallet|payment"
        r"|card|vault|\bkeys?\b|令牌|密码|登录|認証|ログイン|인증|로그인|contraseñ|passwort|connexion|пароль",
    ),
    "assistant context": (
        r"system[ _-]?prompt|instructions you were given|(?:conversation|chat)(?:[ _-]?(?:history|so far|transcript"
        r"|log))?|(?:previous|prior|recent|earlier|other|all)(?: user)? messages|every message|transcript"
        r"|hidden reasoning|other[ _-]?tools|tools available to you|every tool you (?:can )?call(?:ed)?"
        r"|tool[ _-]?(?:outputs?|results?)|results of every tool|对话|会話|대화|conversaci\w*|gespräch\w*"
        r"|chatverlauf|historique|messages exchanged|instrucciones internas|消息原文|全部消息",
        r"conversation|chat|message|transcript|prompt|llm|model|agent|assistant|memory|thread|对话|会話|대화"
        r"|conversaci|nachricht",
    ),
    "private data": (
        r"contacts|address[ _-]?book|inbox|(?:recent|latest|last) (?:\w+ )?emails|home[ _-]?address"
        r"|browser[ _-]?history|open[ _-]?files|files currently open|clipboard|\benv\b|environment[ _-]?variables"
        r"|env[ _-]?dump|location history|(?:open )?browser[ _-]?tabs|open tabs",
        r"contact|address|inbox|mail|browser|history|file|clipboard|\benv|environment|variable|config|crm",
    ),
}
# Whose data: the demand names an owner or a source close to the data it asks for.
_OWNER = (
    r"\bthe user'?s\b|\buser'?s\b|\bof the user\b|\bthe user has\b|\byour\b|\bavailable to you\b|\byou were given\b"
    r"|\byou (?:have|called|used|can call)\b|\bcontents? of\b|\boutput of\b|\bdel usuario\b|\bde l'utilisateur\b"
    r"|\bdes (?:nutzers|benutzers)\b|\bdo usuário\b|\bdell'utente\b|\bassistant'?s\b|用户的|ユーザーの|사용자의"
    r"|пользовател\w*|현재 assistant|アシスタントの|\bof the (?:current |signed-in )?user\b|\bbetween the user and"
    r"|\b(?:available|accessible) to the assistant\b|用户与助手之间|доступные ассистенту"
    # the data's source named as this chat or what the assistant can reach
    r"|\b(?:visible|known) to you\b|\byou can (?:see|read|access)\b|\byou have access to\b|\bwith the user\b"
    r"|\b(?:mentioned|shared|said|given) (?:anywhere )?in (?:this|the) (?:chat|conversation|session)\b"
    r"|\bin (?:this|the current) (?:chat|conversation|session)\b|本次对话中|これまでの|que recibiste|in diesem gespräch"
)
_NEAR = r"[^.;\n]{0,40}?"
# A literal of every match of `_OWNER`, and of every kind's demand, folded: a text holding none of one list (most
# property texts) asks for nothing, and `in` finds that where the regexes would be tried at every position.
OWNER_LITERALS = (
    "user", "your", "you", "content", "output of", "usuario", "utilisateur", "nutzers", "usuário", "utente",
    "assistant", "用户的", "ユーザーの", "사용자의", "пользовател", "アシスタントの", "用户与助手之间", "ассистенту",
    # the chat named as the source: every such owner holds one of these ("visible to you", "with the user" hold
    # "you" and "user")
    "in this chat", "in the chat", "in this conversation", "in the conversation", "in this session", "in the session",
    "in the current", "本次对话中", "これまでの", "que recibiste", "in diesem gespräch",
)
ASK_LITERALS = (
    "passw", "contrase", "kennw", "mot de passe", "密码", "パスワード", "비밀번호", "пароль", "api", "secret",
    "private", "ssh", "id_rsa", "env", "cookie", "oauth", "token", "令牌", "トークン", "토큰", "токен", "pin", "iban",
    "card", "cvv", "seed", "mnemonic", "credential", "bank", "system", "instructions", "conversation", "chat",
    "message", "transcript", "reasoning", "tool", "对话", "会話", "대화", "conversaci", "gespräch", "historique",
    "contacts", "address", "inbox", "emails", "browser", "open", "clipboard", "location", "zugangsdaten",
    "exchanged", "instrucciones internas", "消息", "tabs",
)
_DEMANDS = {
    kind: (lazy(f"(?:{_OWNER}){_NEAR}(?:{asks})|(?:{asks}){_NEAR}(?:{_OWNER})", re.IGNORECASE),
           lazy(job, re.IGNORECASE))
    for kind, (asks, job) in KINDS.items()
}
_NEGATED = lazy(r"\b(?:do not|don'?t|never|must not|should not|not|no|without|avoid|exclude)\b[^.;\n]{0,100}$",
                      re.IGNORECASE)  # "do not include credentials in your query" forbids, never asks
_NOT_TEXT = ("boolean", "integer", "number", "null")


def takes_text(spec: dict[str, Any]) -> bool:
    """Whether a property can carry text: its `type` names a kind other than boolean, number and null (a list of
    types, `["boolean", "null"]`, takes text only if one of them does; no type at all may take anything)."""
    kind = spec.get("type")
    if isinstance(kind, list):
        return any(member not in _NOT_TEXT for member in kind)
    return kind not in _NOT_TEXT
_HUMP = lazy(r"(?<=[a-z0-9])(?=[A-Z])")


def properties(schema: Any, path: str) -> Iterator[tuple[str, str, str]]:
    """(pointer, name, what the model reads about it) of every property that takes text, at any depth."""
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, spec in props.items():
            if not isinstance(name, str) or not isinstance(spec, dict):
                continue
            where = f"{path}/properties/{escape(name)}"
            if takes_text(spec):
                said = [spec.get(key) for key in ("title", "description", "default")]
                words = _HUMP.sub(" ", name).replace("_", " ").replace("-", " ")
                yield where, name, " ".join([words, *(s for s in said if isinstance(s, str))])
            yield from properties(spec, where)
    for key in ("items", "additionalProperties"):
        yield from properties(schema.get(key), f"{path}/{key}")


def could_ask(text: str) -> bool:
    """False when `text` holds no owner or no asked-for literal, so that no `_DEMANDS` pattern can match it."""
    folded = text.lower() if text.isascii() else text.translate(FOLD_ASCII).lower()
    return any(literal in folded for literal in OWNER_LITERALS) and any(literal in folded for literal in ASK_LITERALS)


@functools.lru_cache(maxsize=65536)
def asked(text: str) -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """(kind, evidence, the tool-job pattern that makes it in scope) of each demand `text` makes."""
    if not could_ask(text):
        return ()
    found = []
    for kind, (asks, own_job) in _DEMANDS.items():
        match = asks.search(text)
        if match and not _NEGATED.search(text[: match.start()]):
            found.append((kind, match.group(0), own_job))
    return tuple(found)


def _property_texts(schema: Any, out: list[str]) -> list[str]:
    """The texts `properties(schema, …)` yields, in the same order, without their pointers (built only for a
    hit: most schemas ask for nothing)."""
    if not isinstance(schema, dict):
        return out
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, spec in props.items():
            if not isinstance(name, str) or not isinstance(spec, dict):
                continue
            if takes_text(spec):
                said = [spec.get(key) for key in ("title", "description", "default")]
                words = _HUMP.sub(" ", name).replace("_", " ").replace("-", " ")
                out.append(" ".join([words, *(s for s in said if isinstance(s, str))]))
            _property_texts(spec, out)
    for key in ("items", "additionalProperties"):
        _property_texts(schema.get(key), out)
    return out


def demands(definition: dict[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(kind, pointer, property, evidence) of each property asking for data off the tool's own job."""
    schema = definition.get("inputSchema")
    if not any(map(asked, _property_texts(schema, []))):
        return
    name, description = definition.get("name"), definition.get("description")
    job = " ".join(s for s in (name, description) if isinstance(s, str)).replace("_", " ")
    for where, prop, text in properties(schema, "/inputSchema"):
        for kind, evidence, own_job in asked(text):
            if not own_job.search(job):
                yield kind, where, prop, evidence
                break


@server_check(RULE)
def out_of_scope_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Tools new or changed since the pin whose new properties ask for data off their job."""
    findings: list[Finding] = []
    for name, definition, old in changed_tools(live, pinned):
        known = set(demands(old)) if old is not None else set()
        for kind, where, prop, evidence in demands(definition):
            if (kind, where, prop, evidence) in known:
                continue
            says = f"parameter `{prop}` asks for {kind} unrelated to the tool"
            message = f"{key}: tool `{name}` {where}: {says} [{RULE.id}]"
            findings.append(definition_finding(key, "tools", name, message, [f"evidence: {evidence}"], RULE.severity,
                                               WORDING))
    return findings
