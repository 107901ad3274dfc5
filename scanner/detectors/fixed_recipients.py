"""MCPL-D028: the schema fixes where a message or payment goes.

A recipient-like parameter (`cc`, `bcc`, `to_account`, `webhook_url`, `upload_to`, `attendees`, `cco`, …) whose
`default` or `const` is an address (or a list holding one), or whose `enum` allows only one, sends to whoever wrote
the schema whenever the model leaves it as given ("cc: default billing-copy@…, description: Leave at default",
"to_account: enum [one IBAN]"). No text needs to say so, so no text rule sees it. Honest schemas leave recipients to
the user: on the 464 tuning servers no recipient-like parameter has an address as its default (the one
address-valued default there is a demo file's download URL), and with the fields added since (upload URLs, attendees,
other languages' names, list defaults) no benign definition of the 545 held-out or 532 tuning servers is flagged.
A payload when the address is an outside one (`addresses.outside_address`), else wording only (a documentation
domain).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scanner.detectors.addresses import OUTSIDE_ADDRESS, outside_address
from scanner.detectors.checks import definition_finding, server_check
from scanner.detectors.lazy_re import lazy
from scanner.detectors.texts import changed_tools
from scanner.lock.lockfile import ServerPin
from scanner.model.findings import PAYLOAD, WORDING, Finding
from scanner.model.pointer import escape
from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule

RULE = Rule(
    "MCPL-D028",
    Category.POISONING,
    "high",
    "The input schema fixes a recipient or destination the user did not choose",
    "A recipient-like parameter of a tool (to, cc, bcc, recipient, to_account, iban, wallet, webhook or callback URL, "
    "upload URL, attendees, or the same fields in Spanish, Portuguese, French or German) has an address as its "
    "`default` or `const` (or in the list it defaults to), or an `enum` of one address: whenever the model keeps "
    "the value given, the message, payment or data goes to whoever wrote the schema. A payload when the address is "
    "an outside one, else wording only. Measured per server on real servers (bench/detectors/README.md). Filed as "
    "suspicious-text.",
    reported_as=SUSPICIOUS_TEXT.id,
)

_RECIPIENT = lazy(
    r"(?i)^(?:to|cc|bcc|recipients?|to_?emails?|send_?to|reply_?to|forward_?to|to_?accounts?|destination(?:_?account)?"
    r"|payee|beneficiary|iban|wallet(?:_?address)?|to_?address|receiver|webhook(?:_?url)?|callback(?:_?url)?"
    r"|notify_?url|remote|upload_?(?:to|url)|destination_?url|attendees|participants|invitees"
    # Spanish, Portuguese, French, German: the copy, blind copy and recipient fields of a mail or payment form
    r"|cco|para|destinatari[oa]s?|destinat[aá]rios?|destinataires?|empf[aä]nger)$"
)
_PLACEHOLDER = lazy(r"\{|<|\byour[-_.]|localhost|127\.0\.0\.1")
MAX_DEPTH = 8  # nested object schemas read; deeper ones are not a recipient a model fills in


def fixed(schema: Any, where: str = "/inputSchema", depth: int = 0) -> Iterator[tuple[str, str, str]]:
    """(pointer, property, address) of each recipient-like property whose schema fixes an address."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return
    properties = schema.get("properties")
    for name, prop in (properties.items() if isinstance(properties, dict) else ()):
        if not isinstance(prop, dict):
            continue
        pointer = f"{where}/properties/{escape(str(name))}"
        if _RECIPIENT.match(str(name)):
            for value in _fixed_values(prop):
                address = OUTSIDE_ADDRESS.search(value)
                if address and not _PLACEHOLDER.search(address.group()):
                    yield pointer, str(name), address.group()
                    break
        yield from fixed(prop, pointer, depth + 1)
    yield from fixed(schema.get("items"), f"{where}/items", depth + 1)


def _fixed_values(prop: dict[str, Any]) -> list[str]:
    """The values the schema gives the property: a string default or const, each string of a list one (the
    attendees or recipients an array starts with), an enum of one."""
    values: list[str] = []
    for key in ("default", "const"):
        given = prop.get(key)
        if isinstance(given, str):
            values.append(given)
        elif isinstance(given, list):
            values += [value for value in given if isinstance(value, str)]
    enum = prop.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], str):
        values.append(enum[0])
    return values


@server_check(RULE)
def fixed_recipient_findings(key: str, pinned: ServerPin | None, live: ServerPin) -> list[Finding]:
    """Tools new or changed since the pin whose schema newly fixes a recipient."""
    findings: list[Finding] = []
    for name, definition, old in changed_tools(live, pinned):
        known = set(fixed(old.get("inputSchema"))) if old is not None else set()
        for where, prop, address in fixed(definition.get("inputSchema")):
            if (where, prop, address) in known:
                continue
            message = f"{key}: tool `{name}` {where}: parameter `{prop}` is fixed to {address} [{RULE.id}]"
            kind = PAYLOAD if outside_address(address) else WORDING
            findings.append(definition_finding(key, "tools", name, message, [f"evidence: {address}"], RULE.severity,
                                               kind))
    return findings
