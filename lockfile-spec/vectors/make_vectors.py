"""Writes the canonicalisation test vectors (*.json next to this file).

Every expected canonical form below is written by hand from the rules of RFC 8785 and
SPEC.md ("Canonical form"), most of them copied from the RFC itself; this script does not
import mcp-lock. It only computes each digest, SHA-256 over the UTF-8 of the expected
canonical text, and writes the files. The text-layout vectors are written by hand from
section 4; the lockfile vectors are example/mcp-lock.json with one edit each, every edit
citing the rule that makes it refused, plus two generated deep locks (ASCII and integers
only, where json.dumps with sorted keys is both the canonical form and the file layout).
Run: python lockfile-spec/vectors/make_vectors.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent


def ok(name: str, input_text: str, canonical: str, note: str = "", **extra: str) -> dict[str, str]:
    vector = {"name": name, "input": input_text, "canonical": canonical,
              "digest": "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()}
    if note:
        vector["note"] = note
    return vector | extra


def err(name: str, input_text: str, error: str, note: str = "") -> dict[str, str]:
    vector = {"name": name, "input": input_text, "error": error}
    if note:
        vector["note"] = note
    return vector


RFC8785 = [
    ok(
        "rfc8785-3.2.2-sample",
        '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n'
        '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n'
        '  "literals": [null, true, false]\n}',
        '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
        "RFC 8785 section 3.2.2, input and output verbatim.",
    ),
    ok(
        "rfc8785-3.2.3-sorting",
        '{\n  "\\u20ac": "Euro Sign",\n  "\\r": "Carriage Return",\n'
        '  "\\ufb33": "Hebrew Letter Dalet With Dagesh",\n  "1": "One",\n'
        '  "\\ud83d\\ude00": "Emoji: Grinning Face",\n  "\\u0080": "Control",\n'
        '  "\\u00f6": "Latin Small Letter O With Diaeresis"\n}',
        '{"\\r":"Carriage Return","1":"One","\u0080":"Control",'
        '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
        '"\U0001f600":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
        "RFC 8785 section 3.2.3: keys sort by UTF-16 code units, so U+1F600 (D83D DE00) comes"
        " before U+FB33; U+0080 is written raw (only U+0000..U+001F are escaped).",
    ),
]

# RFC 8785 appendix B: IEEE-754 bit pattern -> expected text. The input literal is another
# spelling of the same double, so that formatting (not just parsing) is exercised.
_APPENDIX_B = [
    ("0000000000000000", "0.0", "0"),
    ("8000000000000000", "-0.0", "0"),
    ("0000000000000001", "4.9406564584124654E-324", "5e-324"),
    ("8000000000000001", "-5e-324", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e308", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157E+308", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992", "9007199254740992"),
    ("c340000000000000", "-9007199254740992", "-9007199254740992"),
    ("4430000000000000", "295147905179352825856", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e22", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1E23", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e23", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "9.999999999999997e20", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "9.999999999999999e20", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e21", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "1e-6", "0.000001"),
    ("41b3de4355555553", "333333333.3333332", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325", "333333333.33333325"),
    ("41b3de4355555555", "333333333.33333331", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343", "333333333.33333343"),
    ("becbf647612f3696", "-3.3333333333333333e-6", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.25", "1424953923781206.2"),
]
RFC8785 += [
    ok(f"rfc8785-appendix-b-{bits}", literal, expected, "RFC 8785 appendix B.", ieee754=bits)
    for bits, literal, expected in _APPENDIX_B
]

NUMBERS = [
    ok("one-point-zero", "1.0", "1", "A double with no fraction prints as an integer."),
    ok("one-e-21", "1e21", "1e+21", "From 1e21 up, exponent form with an explicit +."),
    ok("one-e-20", "1E20", "100000000000000000000", "Below 1e21, all digits: 1 and 20 zeros."),
    ok("minus-zero-integer", "-0", "0", "-0 and 0 are one value."),
    ok("minus-zero-double", "-0.0", "0"),
    ok("smallest-subnormal", "5e-324", "5e-324"),
    ok("small-fixed", "0.0000123", "0.0000123", "Down to 1e-6 plain decimal, below that exponent form."),
    ok("small-exponent", "1.5E-7", "1.5e-7"),
    ok("max-safe-integer", "9007199254740991", "9007199254740991", "2^53-1 is kept as it is."),
    ok("min-safe-integer", "-9007199254740991", "-9007199254740991"),
    ok("two-pow-53-plus-one", "9007199254740993", "9007199254740992",
       "Outside +-(2^53-1) an integer is read as the nearest double: 2^53+1 lies halfway between"
       " 2^53 and 2^53+2 and rounds to the even one, 2^53."),
    ok("negative-beyond-safe", "-9007199254740993", "-9007199254740992"),
    ok("uint64-max", "18446744073709551615", "18446744073709552000",
       "2^64-1 reads as the double 2^64 = 18446744073709551616, whose shortest round-trip"
       " digits are 18446744073709552 (x 10^3)."),
    ok("big-int-in-schema", '{"maximum":18446744073709551615,"minimum":-9223372036854775808}',
       '{"maximum":18446744073709552000,"minimum":-9223372036854776000}',
       "-2^63 is a double exactly; its shortest digits are 9223372036854776 (x 10^3)."),
    ok("integers-and-fractions", "[100, 1E2, 0.1, 1.5e300, -12.5, 3]", "[100,100,0.1,1.5e+300,-12.5,3]"),
    err("double-overflow", "1e400", "not-finite", "Reads as Infinity, which JSON cannot carry."),
    err("negative-double-overflow", "[-1e400]", "not-finite"),
    err("integer-overflow", "1" + "0" * 309, "not-finite", "10^309 rounds to Infinity as a double."),
]

STRINGS = [
    ok("key-order-ascii", '{"b":1,"a":2,"A":3,"aa":4,"":5}', '{"":5,"A":3,"a":2,"aa":4,"b":1}',
       'UTF-16 order: "" < "A" (0x41) < "a" (0x61) < "aa" < "b".'),
    ok("key-order-astral-before-private-use", '{"\\ue000":1,"\\ud83d\\ude00":2}',
       '{"\U0001f600":2,"\ue000":1}',
       "U+1F600 is D83D DE00 in UTF-16, below E000: it sorts first although its code point is higher."),
    ok("combining-not-normalised", '{"\\u00e9":"precomposed","e\\u0301":"combining"}',
       '{"e\u0301":"combining","\u00e9":"precomposed"}',
       "No Unicode normalisation: e+U+0301 and U+00E9 are different keys; 0x65 sorts before 0xE9."),
    ok("non-bmp-value", '"\\ud83d\\ude00 \\ud834\\udd1e"', '"\U0001f600 \U0001d11e"',
       "A surrogate pair escape becomes the 4-byte UTF-8 character."),
    ok("invisible-characters-raw", '"a\\u200bb\\u202ec\\udb40\\udc41d\\u2028e\\u00adf\\ufeff"',
       '"a\u200bb\u202ec\U000e0041d\u2028e\u00adf\ufeff"',
       "Canonical form escapes only U+0000..U+001F, quote and backslash; hidden characters are"
       " hashed as themselves (the lockfile text escapes them, the digest does not see that)."),
    ok("controls", '"\\u0000\\u001f\\u007f\\b\\f\\n\\r\\t"', '"\\u0000\\u001f\u007f\\b\\f\\n\\r\\t"',
       "Lowercase hex for U+0000..U+001F except the five short escapes; DEL (U+007F) raw."),
    ok("solidus-and-quotes", '"\\/ \\" \\\\"', '"/ \\" \\\\"', "Solidus is never escaped."),
    ok("escaped-latin", '"caf\\u00e9"', '"caf\u00e9"'),
    err("lone-high-surrogate", '"\\ud800"', "lone-surrogate"),
    err("lone-low-surrogate-in-key", '{"\\udc00":1}', "lone-surrogate"),
    err("reversed-pair", '"\\udc00\\ud800"', "lone-surrogate"),
]

STRUCTURE = [
    ok("nested-empties", '{ "e": {"f": {}}, "d": [[]], "c": [{}], "b": [], "a": {} }',
       '{"a":{},"b":[],"c":[{}],"d":[[]],"e":{"f":{}}}'),
    ok("array-order-kept", "[3, 1, 2]", "[3,1,2]"),
    ok("nested-objects-sorted", '{"z":{"b":true,"a":null},"y":[{"d":1,"c":2}]}',
       '{"y":[{"c":2,"d":1}],"z":{"a":null,"b":true}}'),
    ok("top-level-string", '"x"', '"x"'),
    ok("top-level-null", " null ", "null"),
    ok("depth-256", "[" * 256 + "]" * 256, "[" * 256 + "]" * 256,
       "256 nested arrays/objects is the most allowed."),
    err("depth-257", "[" * 257 + "]" * 257, "too-deep"),
]

_TIMEZONE = ("IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local"
             " timezone if no timezone provided by the user.")
_SOURCE_TZ = ("Source IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as"
              " local timezone if no source timezone provided by the user.")
_TARGET_TZ = ("Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco'). Use 'UTC' as"
              " local timezone if no target timezone provided by the user.")
_ANNOTATIONS_IN = ('"annotations": {"readOnlyHint": true, "destructiveHint": false,'
                   ' "idempotentHint": true, "openWorldHint": false}')
_ANNOTATIONS_OUT = ('"annotations":{"destructiveHint":false,"idempotentHint":true,'
                    '"openWorldHint":false,"readOnlyHint":true}')

REAL = [
    ok(
        "mcp-server-time-get_current_time",
        '{"name": "get_current_time", "description": "Get current time in a specific timezone",'
        ' "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string",'
        f' "description": "{_TIMEZONE}"}}}}, "required": ["timezone"]}}, {_ANNOTATIONS_IN}}}',
        '{' + _ANNOTATIONS_OUT + ',"description":"Get current time in a specific timezone",'
        '"inputSchema":{"properties":{"timezone":{"description":"' + _TIMEZONE + '","type":"string"}},'
        '"required":["timezone"],"type":"object"},"name":"get_current_time"}',
        "tools/list entry of mcp-server-time (modelcontextprotocol/servers, src/time) as the MCP"
        " Python SDK sends it, with local timezone UTC.",
    ),
    ok(
        "mcp-server-time-convert_time",
        '{"name": "convert_time", "description": "Convert time between timezones", "inputSchema":'
        ' {"type": "object", "properties": {"source_timezone": {"type": "string", "description":'
        f' "{_SOURCE_TZ}"}}, "time": {{"type": "string", "description": "Time to convert in 24-hour'
        ' format (HH:MM)"}, "target_timezone": {"type": "string", "description":'
        f' "{_TARGET_TZ}"}}}}, "required": ["source_timezone", "time", "target_timezone"]}},'
        f' {_ANNOTATIONS_IN}}}',
        '{' + _ANNOTATIONS_OUT + ',"description":"Convert time between timezones","inputSchema":'
        '{"properties":{"source_timezone":{"description":"' + _SOURCE_TZ + '","type":"string"},'
        '"target_timezone":{"description":"' + _TARGET_TZ + '","type":"string"},'
        '"time":{"description":"Time to convert in 24-hour format (HH:MM)","type":"string"}},'
        '"required":["source_timezone","time","target_timezone"],"type":"object"},'
        '"name":"convert_time"}',
        "Same server; the array keeps its order while object keys sort.",
    ),
]

FILES = {
    "rfc8785.json": ("Examples from RFC 8785 itself (sections 3.2.2, 3.2.3 and appendix B).", RFC8785),
    "numbers.json": ("Number edge cases, including integers beyond +-(2^53-1).", NUMBERS),
    "strings.json": ("Key order, Unicode and escaping; lone surrogates are errors.", STRINGS),
    "structure.json": ("Nesting, empty containers, top-level scalars, the depth limit.", STRUCTURE),
    "real-tools.json": ("Tool definitions as real servers send them.", REAL),
}

# --- Beyond canonical form: the JSON reader, the file's text, whole lockfiles -------------------------

DUPLICATE_KEYS = [
    err("duplicate-top-level", '{"a":1,"a":1}', "duplicate-key",
        "SPEC.md section 2 rule 5: canonical form is only defined for unique keys; even equal values are refused."),
    err("duplicate-nested", '{"x":[{"b":1,"c":2,"b":3}]}', "duplicate-key", "At any depth."),
    err("duplicate-after-unescaping", '{"name":"a","\\u006eame":"b"}', "duplicate-key",
        "Keys are compared as the strings they denote: \\u006e is n, so both keys are \"name\"."),
    ok("not-duplicate-case", '{"Name":1,"name":2}', '{"Name":1,"name":2}', "Keys differing in case are distinct."),
    ok("not-duplicate-normalisation", '{"\\u00e9":1,"e\\u0301":2}', '{"e\u0301":2,"\u00e9":1}',
       "No Unicode normalisation (section 2 rule 3): these keys are distinct."),
]

# Text layout (SPEC.md section 4): `input` is JSON text, `text` the exact file text a writer produces for
# it, final LF included. Written by hand from section 4; ASCII-only inputs are also what
# json.dumps(value, indent=2, sort_keys=True) + "\n" gives, as section 4 says.
TEXT_LAYOUT = [
    {"name": "scalars", "input": "[1.0, -0, 1e21, 1E20, true, null, \"x\"]",
     "text": '[\n  1,\n  0,\n  1e+21,\n  100000000000000000000,\n  true,\n  null,\n  "x"\n]\n',
     "note": "Numbers as in canonical form; one element a line, 2 spaces a level, `,` at line end."},
    {"name": "members-sorted-one-space-after-colon", "input": '{"b": {"d": [], "c": {}}, "a": 1}',
     "text": '{\n  "a": 1,\n  "b": {\n    "c": {},\n    "d": []\n  }\n}\n',
     "note": "Members sorted at every depth; empty containers as {} and [] on the member's line."},
    {"name": "utf16-key-order", "input": '{"\\ue000": 1, "\\ud83d\\ude00": 2}',
     "text": '{\n  "\U0001f600": 2,\n  "\\ue000": 1\n}\n',
     "note": "U+1F600 (D83D DE00) sorts before U+E000; U+E000 is private use, in the escape set."},
    {"name": "short-escapes-and-solidus", "input": '"tab\\tnl\\ncr\\rbs\\bff\\f quote\\" back\\\\ slash/"',
     "text": '"tab\\tnl\\ncr\\rbs\\bff\\f quote\\" back\\\\ slash/"\n',
     "note": "The five short escapes, \\\" and \\\\; `/` is never escaped."},
    {"name": "hidden-characters-escaped",
     "input": '"a\\u200bb\\u202ec\\udb40\\udc41d\\u00a0e\\u007ff\\u0000"',
     "text": '"a\\u200bb\\u202ec\\udb40\\udc41d\\u00a0e\\u007ff\\u0000"\n',
     "note": "Escape set (section 4.1): ZWSP, RLO, a tag character (as its surrogate pair), NBSP, DEL and"
             " NUL as lowercase \\uXXXX."},
    {"name": "visible-characters-raw", "input": '"Caf\\u00e9 9\\u201317 \\u0430 \\ud83d\\ude00 \\u4e2d"',
     "text": '"Caf\u00e9 9\u201317 \u0430 \U0001f600 \u4e2d"\n',
     "note": "Accented letters, an en dash, Cyrillic a, emoji and CJK are written as themselves in UTF-8."},
    {"name": "nested-arrays", "input": "[[1, [2]], []]",
     "text": "[\n  [\n    1,\n    [\n      2\n    ]\n  ],\n  []\n]\n"},
    {"name": "tree-packages-one-per-line",
     "input": '{"servers": {"s": {"launch": {"tree": {"format": 4, "manager": "npm", "packages": ['
              '{"version": "1.0.0", "path": "node_modules/a", "name": "a", "dependencies": {"b": "^2.0.0"},'
              ' "os": [], "bin": {"a": "cli.js"}, "note": "\\u200bx\\u00e9"},'
              ' {"path": "node_modules/b", "name": "b", "version": 2, "x": [1.0, {"y": null}]}]}}}}}',
     "text": '{\n  "servers": {\n    "s": {\n      "launch": {\n        "tree": {\n          "format": 4,\n'
             '          "manager": "npm",\n          "packages": [\n'
             '            {"bin": {"a": "cli.js"}, "dependencies": {"b": "^2.0.0"}, "name": "a",'
             ' "note": "\\u200bx\u00e9", "os": [], "path": "node_modules/a", "version": "1.0.0"},\n'
             '            {"name": "b", "path": "node_modules/b", "version": 2, "x": [1, {"y": null}]}\n'
             '          ]\n        }\n      }\n    }\n  }\n}\n',
     "note": "At /servers/*/launch/tree/packages/* of a tree with format 4, each package is on one line: members"
             " sorted, `, ` between them and `: ` after a key, nested values inline, escapes and numbers as"
             " everywhere."},
    {"name": "tree-packages-before-format-4",
     "input": '{"servers": {"s": {"launch": {"tree": {"manager": "uv", "packages": [{"name": "a"}]}}}}}',
     "text": '{\n  "servers": {\n    "s": {\n      "launch": {\n        "tree": {\n          "manager": "uv",\n'
             '          "packages": [\n            {\n              "name": "a"\n            }\n          ]\n'
             '        }\n      }\n    }\n  }\n}\n',
     "note": "A tree without format 4 (a version 3 record) keeps one member a line."},
    {"name": "packages-elsewhere-one-member-a-line",
     "input": '{"servers": {"s": {"tools": {"t": {"definition": {"format": 4, "packages": [{"a": 1}]}}}}}}',
     "text": '{\n  "servers": {\n    "s": {\n      "tools": {\n        "t": {\n          "definition": {\n'
             '            "format": 4,\n            "packages": [\n              {\n                "a": 1\n'
             '              }\n            ]\n          }\n        }\n      }\n    }\n  }\n}\n',
     "note": "The rule is by path from the root: `packages` inside a definition is laid out like the rest."},
]

_EXAMPLE = (HERE.parent / "example" / "mcp-lock.json").read_text(encoding="utf-8")


def _edit(old: str, new: str, text: str = _EXAMPLE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def refuse(name: str, text: str, reason: str, note: str) -> dict[str, str]:
    return {"name": name, "text": text, "refuse": reason, "note": note}


def accept(name: str, text: str, note: str) -> dict[str, str]:
    return {"name": name, "text": text, "accept": "yes", "note": note}


def _sha(canonical: str) -> str:
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _deep_lock(levels: int) -> str:
    """A one-tool lock whose tool definition nests `levels` arrays/objects, the definition counted as 1.

    ASCII and integers only, so json.dumps with sorted keys is the canonical form and the file layout.
    """
    nested: object = []
    for _ in range(levels - 2):
        nested = [nested]
    definition = {"inputSchema": nested, "name": "deep"}
    compact = {"separators": (",", ":"), "sort_keys": True}
    tool_digest = _sha(json.dumps(definition, **compact))
    surface = {"instructions": None, "prompts": {}, "resourceTemplates": {}, "resources": {},
               "tools": {"deep": tool_digest}}
    server = {
        "capabilities": {}, "declarations": [{"client": "claude-code", "file": ".mcp.json", "name": "deep"}],
        "digest": _sha(json.dumps(surface, **compact)), "instructions": None,
        "launch": {"args": [], "command": "deep-server", "env": [], "transport": "stdio"},
        "prompts": {}, "protocolVersion": "2025-06-18", "resourceTemplates": {}, "resources": {},
        "serverInfo": {"name": "deep", "version": "1.0.0"},
        "tools": {"deep": {"definition": definition, "digest": tool_digest}},
    }
    return json.dumps({"lockfileVersion": 1, "servers": {"deep": server}}, indent=2, sort_keys=True) + "\n"


_TIME_DECLARATIONS = (
    '        {\n          "client": "claude-code",\n          "file": ".mcp.json",\n          "name": "time"\n'
    '        },\n        {\n          "client": "vscode",\n          "file": ".vscode/mcp.json",\n'
    '          "name": "time"\n        }\n'
)
_SWAPPED = (
    '        {\n          "client": "vscode",\n          "file": ".vscode/mcp.json",\n          "name": "time"\n'
    '        },\n        {\n          "client": "claude-code",\n          "file": ".mcp.json",\n'
    '          "name": "time"\n        }\n'
)
_REPEATED = (
    '        {\n          "client": "claude-code",\n          "file": ".mcp.json",\n          "name": "time"\n'
    '        },\n' + _TIME_DECLARATIONS
)
_TIME_DIGEST = "sha256:4e7bedc1b3789fb00691ac83ceb56cee96a9192060fec33707fde5ea49a311c9"
_SURFACE = "sha256:7370205d6971de62a2fc3de286f73ea3460da7fe167f5cdbfd53ea5b1edae559"
_SERVER_INFO = '      "serverInfo": {\n        "name": "mcp-time",\n        "version": "1.26.0"\n      },\n'

_PYPI_ARTIFACT = (
    '        "artifact": {\n          "file": "mcp_server_time-2025.9.25-py3-none-any.whl",\n'
    '          "name": "mcp-server-time",\n'
    '          "sha256": "5cc559709887db33bf77546c2efb0a9352c13870cc2bfaeffab1a6bd6390419b",\n'
    '          "type": "pypi",\n          "version": "2025.9.25"\n        },\n'
)
_NPM_ARTIFACT = (
    '        "artifact": {\n          "integrity": "sha512-kKaFkyAh6oipvc9+EAbJ552JafnMnOq5nzmzWkp1jJdBhTAAGpmIpWihUG1'
    '+rfNhmEFM98gUZDdCHCDD4v6a7Q==",\n          "name": "mcp-server-time",\n          "type": "npm",\n'
    '          "version": "2026.8.31"\n        },\n'
)


_TREE_PACKAGES = [
    {"name": "mcp-server-time", "sha256": ["5cc559709887db33bf77546c2efb0a9352c13870cc2bfaeffab1a6bd6390419b"],
     "version": "2025.9.25"},
    {"name": "tzdata", "sha256": ["1a403fada01ff9221ca8044d701868fa132215d84beb92242d9acd2147f667a8",
                                  "5cb3bb9a9e9f8d1fc0c44b6d5cd9a1ac2b3b4f3ac93c0b2a15c6e2e0cf3dbb4e"],
     "version": "2025.2"},
]
# Section 1.2.2: the tree digest is over {"manager", "packages"}; all ASCII, no number: sorted compact JSON is
# its canonical form.
_TREE_DIGEST = _sha(json.dumps({"manager": "uv", "packages": _TREE_PACKAGES}, sort_keys=True, separators=(",", ":")))
# From version 4, a format 4 tree's digest also covers `"format": 4`.
_EXACT_DIGEST = _sha(
    json.dumps({"format": 4, "manager": "uv", "packages": _TREE_PACKAGES}, sort_keys=True, separators=(",", ":"))
)


def _tree_text(digest: str, exact: bool = False) -> str:
    lines = [',\n        "tree": {\n', f'          "digest": "{digest}",\n',
             *(['          "format": 4,\n'] if exact else []), '          "manager": "uv",\n',
             '          "packages": [\n']
    for index, package in enumerate(_TREE_PACKAGES):
        end = ",\n" if index + 1 < len(_TREE_PACKAGES) else "\n"
        if exact:  # section 4: a package of a format 4 tree on one line
            hashes = ", ".join(f'"{h}"' for h in package["sha256"])
            lines.append(f'            {{"name": "{package["name"]}", "sha256": [{hashes}],'
                         f' "version": "{package["version"]}"}}' + end)
            continue
        hashes = ",\n".join(f'                "{h}"' for h in package["sha256"])
        lines.append(
            f'            {{\n              "name": "{package["name"]}",\n              "sha256": [\n{hashes}\n'
            f'              ],\n              "version": "{package["version"]}"\n            }}' + end
        )
    lines.append("          ]\n        }\n")
    return "".join(lines)


def _with_tree(version: int, digest: str = "", exact: bool = False) -> str:
    """The example with a `tree` in the time server's launch (its last member) and `version`; `exact`: a
    format 4 tree."""
    text = _edit('"lockfileVersion": 1,', f'"lockfileVersion": {version},')
    launch_end = '        "env": [],\n        "transport": "stdio"\n'
    assert text.count(launch_end) == 1
    default = _EXACT_DIGEST if exact else _TREE_DIGEST
    return text.replace(launch_end, launch_end[:-1] + _tree_text(digest or default, exact))


def _with_artifact(version: int, artifact: str) -> str:
    """The example with `artifact` in the time server's launch (members in key order) and `version`."""
    text = _edit('"lockfileVersion": 1,', f'"lockfileVersion": {version},')
    launch_end = '          "--local-timezone=UTC"\n        ],\n'
    assert text.count(launch_end) == 1
    return text.replace(launch_end, launch_end + artifact)


LOCKFILES = [
    accept("example", _EXAMPLE, "example/mcp-lock.json itself: canonical, every digest right."),
    accept("depth-256-definition", _deep_lock(256),
           "Section 2 rule 4: the definition (level 1) holds 255 nested arrays, 256 levels in all; in the"
           " file that is level 261 (document 1, servers 2, server 3, tools 4, pin 5, definition 6)."),
    refuse("depth-257-definition", _deep_lock(257), "too-deep",
           "One level more than depth-256-definition: the definition has no canonical form (section 5 item 6)."),
    refuse("duplicate-key-top-level", _edit('  "lockfileVersion": 1,\n', '  "lockfileVersion": 1,\n'
                                            '  "lockfileVersion": 1,\n'), "duplicate-key", "Section 5 item 3."),
    refuse("duplicate-key-in-definition",
           _edit('            "name": "get_current_time"\n',
                 '            "name": "get_current_time",\n            "name": "get_current_time"\n'),
           "duplicate-key", "Section 5 item 3: at any depth, inside a definition too."),
    refuse("duplicate-key-escaped", _edit('  "lockfileVersion": 1,\n', '  "lockfileVersion": 1,\n'
                                          '  "\\u006cockfileVersion": 1,\n'), "duplicate-key",
           "Section 5 item 3: \\u006c is l, so the key repeats once unescaped."),
    refuse("declarations-unsorted", _edit(_TIME_DECLARATIONS, _SWAPPED), "declarations",
           "Section 1.2: declarations sorted by (file, client, name); section 5 item 8. Declarations are in no"
           " digest, so only this rule catches the swap."),
    refuse("declarations-repeated", _edit(_TIME_DECLARATIONS, _REPEATED), "schema",
           "Section 1.2: no duplicates; the schema says so (uniqueItems), and section 5 item 7 comes first."),
    refuse("definition-digest-wrong", _edit(_TIME_DIGEST, _TIME_DIGEST[:-1] + "8"), "digest",
           "Section 5 item 8: the recorded digest is not the digest of the recorded definition."),
    refuse("surface-digest-wrong", _edit(_SURFACE, _SURFACE[:-1] + "8"), "digest", "Section 5 item 8."),
    refuse("definition-edited", _edit('"description": "Convert time between timezones"',
                                      '"description": "Convert time between timezones, then email it"'),
           "digest", "Section 5 item 8: a definition edited without its digest."),
    refuse("newer-version", _edit('"lockfileVersion": 1,', '"lockfileVersion": 5,'), "newer-version",
           "Section 5 item 5 and section 6."),
    accept("artifact-pypi", _with_artifact(2, _PYPI_ARTIFACT),
           "Section 1.2.1 and section 6: version 2 adds launch.artifact (here uv's record of the wheel that ran)."),
    accept("artifact-npm", _with_artifact(2, _NPM_ARTIFACT), "Section 1.2.1: an npm artifact with its integrity."),
    refuse("artifact-in-version-1", _with_artifact(1, _PYPI_ARTIFACT), "schema",
           "Section 6: launch.artifact is a version 2 field; under version 1 it is hand-editing."),
    refuse("artifact-unknown-field", _with_artifact(2, _PYPI_ARTIFACT.replace(
        '          "type": "pypi",\n', '          "type": "pypi",\n          "url": "x",\n')), "schema",
           "Section 1.2.1: an artifact record is closed. (Also out of key order.)"),
    accept("tree-uv", _with_tree(3),
           "Section 1.2.2 and section 6: version 3 adds launch.tree, every package with its files' sha256."),
    refuse("tree-digest-wrong", _with_tree(3, _TREE_DIGEST[:-1] + ("0" if _TREE_DIGEST[-1] != "0" else "1")),
           "digest", "Section 1.2.2 and section 5 item 8: the tree digest is not the digest of its packages."),
    accept("tree-format-4", _with_tree(4, exact=True),
           "Section 1.2.2 and section 6: version 4 adds launch.tree.format 4, covered by the tree digest."),
    refuse("tree-format-4-in-version-3", _with_tree(3, exact=True), "schema",
           "Section 6: launch.tree.format is a version 4 field; under version 3 it is hand-editing."),
    refuse("tree-format-4-digest-without-format", _with_tree(4, _TREE_DIGEST, exact=True), "digest",
           "Section 1.2.2: a format 4 tree's digest covers its format; the version 3 digest does not verify."),
    refuse("tree-in-version-2", _with_tree(2), "schema",
           "Section 6: launch.tree is a version 3 field; under version 2 it is hand-editing."),
    accept("version-2-without-artifact", _edit('"lockfileVersion": 1,', '"lockfileVersion": 2,'),
           "Section 6: a valid version 2 document, though a writer writes a lock that uses nothing of version 2"
           " as version 1."),
    refuse("unknown-server-field", _edit(_SERVER_INFO, _SERVER_INFO + '      "signed": true,\n'), "schema",
           "Section 5 item 7 and section 6: the server entry is closed. (Also out of key order.)"),
    refuse("raw-hidden-character", _edit("Café hours", "Café\u202ehours"), "raw-hidden",
           "Section 5 item 2: U+202E written raw instead of as \\u202e."),
    refuse("byte-order-mark", "\ufeff" + _EXAMPLE, "byte-order-mark", "Section 5 item 1."),
    refuse("lone-surrogate", _edit("Café hours", "Caf\\ud800 hours"), "no-canonical-form",
           "Section 5 item 6 (section 2 rule 3)."),
    refuse("not-json", _EXAMPLE[:-3] + "\n", "invalid-json", "Section 5 item 3: truncated."),
    refuse("layout-four-space-indent", _EXAMPLE.replace("\n  ", "\n    "), "non-canonical-text",
           "Section 4 and section 5 item 9: 4 spaces a level instead of 2."),
    refuse("layout-crlf", _EXAMPLE.replace("\n", "\r\n"), "non-canonical-text", "Section 4: LF line ends."),
    refuse("layout-no-final-newline", _EXAMPLE[:-1], "non-canonical-text", "Section 4: exactly one final LF."),
    refuse("layout-two-final-newlines", _EXAMPLE + "\n", "non-canonical-text", "Section 4: exactly one final LF."),
    refuse("layout-minified", json.dumps(json.loads(_EXAMPLE), ensure_ascii=True, separators=(",", ":")) + "\n",
           "non-canonical-text", "Section 4: one member a line."),
    refuse("layout-members-unsorted", _edit(_SERVER_INFO, '      "serverInfo": {\n        "version": "1.26.0",\n'
                                            '        "name": "mcp-time"\n      },\n'),
           "non-canonical-text", "Section 4: members sorted at every depth."),
    refuse("layout-needless-escape", _edit('"name": "mcp-time"', '"name": "mcp-\\u0074ime"'), "non-canonical-text",
           "Section 4: t is not in the escape set, so it is written as itself; the escape would hide a word"
           " from a reviewer's search."),
    refuse("layout-escaped-solidus", _edit('"url": "https://notes.example.com/mcp"',
                                           '"url": "https:\\/\\/notes.example.com\\/mcp"'),
           "non-canonical-text", "Section 4: / is never escaped."),
]

FILES |= {
    "duplicate-keys.json": ("Duplicate keys: a JSON reader refuses them (section 2 rule 5).", DUPLICATE_KEYS),
}
EXTRA_FILES = {
    "text-layout.json": (
        "The exact text of a value in the lockfile (section 4).",
        "`input` is JSON text; `text` is the exact text (UTF-8, final LF included) section 4 renders its value as.",
        TEXT_LAYOUT,
    ),
    "lockfiles.json": (
        "Whole lockfiles a reader accepts or refuses (section 5).",
        "`text` is the whole file (UTF-8). A vector with `accept` is a valid lockfile; one with `refuse`"
        " MUST be refused, for the reason it names: duplicate-key, declarations, digest, newer-version,"
        " schema, raw-hidden, byte-order-mark, no-canonical-form, too-deep, invalid-json or"
        " non-canonical-text. `note` cites the rule.",
        LOCKFILES,
    ),
}


FORMAT = (
    "Each vector: `input` is JSON text. Parse it (integers beyond +-(2^53-1) read as the nearest"
    " double), canonicalise it, and either get exactly `canonical` (a string whose UTF-8 encoding"
    " is the canonical bytes) and `digest` (sha256: + hex SHA-256 of those bytes), or, when the"
    " vector has `error`, a refusal: lone-surrogate, not-finite, too-deep or duplicate-key."
)


def main() -> None:
    for name, (description, vectors) in FILES.items():
        document = {"description": description, "format": FORMAT, "vectors": vectors}
        text = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
        (HERE / name).write_text(text, encoding="utf-8", newline="\n")
    for name, (description, format_text, vectors) in EXTRA_FILES.items():
        document = {"description": description, "format": format_text, "vectors": vectors}
        text = json.dumps(document, indent=2, ensure_ascii=True) + "\n"
        (HERE / name).write_text(text, encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main()
