"""GitHub Actions expressions (`${{ … }}` and `if:`), evaluated the way the runner does, for tests/actions_runner.py.

Covers what workflows and composite actions use: literals, context property access (`a.b-c`, `a['b']`),
`!`, comparisons with GitHub's loose equality (strings compare case-insensitively; mixed types compare
as numbers, so `null != true`), `&&`/`||` returning an operand, and the status and string functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>\d+(?:\.\d+)?)|(?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)
STATUS_FUNCTIONS = re.compile(r"\b(always|success|failure|cancelled)\s*\(")
TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.S)


class ExpressionError(ValueError):
    """An expression the emulator cannot parse (a typo in action.yml or a workflow, or an unsupported form)."""


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = TOKEN.match(text, position)
        if not match:
            raise ExpressionError(f"cannot parse {text!r} at {position}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def to_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        if value.strip() == "":
            return 0.0
        try:
            return float(value.strip())
        except ValueError:
            return math.nan
    return math.nan


def truthy(value: Any) -> bool:
    if isinstance(value, float) and math.isnan(value):
        return False
    return value not in (None, False, 0, "")


def loosely_equal(left: Any, right: Any) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()
    if isinstance(left, dict | list) or isinstance(right, dict | list):
        return left is right
    return to_number(left) == to_number(right)


def to_string(value: Any) -> str:
    """How a value is written into a string (an input, an env value, a script)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Evaluator:
    def __init__(self, contexts: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]) -> None:
        self.contexts = contexts
        self.functions = functions
        self.tokens: list[tuple[str, str]] = []
        self.index = 0

    def evaluate(self, text: str) -> Any:
        self.tokens, self.index = tokenize(text), 0
        value = self.disjunction()
        if self.index != len(self.tokens):
            raise ExpressionError(f"unexpected {self.tokens[self.index][1]!r} in {text!r}")
        return value

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise ExpressionError("unexpected end of expression")
        token = self.tokens[self.index]
        if expected is not None and token[1] != expected:
            raise ExpressionError(f"expected {expected!r}, found {token[1]!r}")
        self.index += 1
        return token

    def disjunction(self) -> Any:
        value = self.conjunction()
        while self.peek() == "||":
            self.take()
            right = self.conjunction()
            value = value if truthy(value) else right
        return value

    def conjunction(self) -> Any:
        value = self.equality()
        while self.peek() == "&&":
            self.take()
            right = self.equality()
            value = right if truthy(value) else value
        return value

    def equality(self) -> Any:
        value = self.comparison()
        while self.peek() in ("==", "!="):
            operator = self.take()[1]
            equal = loosely_equal(value, self.comparison())
            value = equal if operator == "==" else not equal
        return value

    def comparison(self) -> Any:
        value = self.unary()
        while self.peek() in ("<", "<=", ">", ">="):
            operator = self.take()[1]
            left, right = to_number(value), to_number(self.unary())
            value = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[operator]
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        return self.primary()

    def primary(self) -> Any:
        kind, text = self.take()
        if text == "(":
            value = self.disjunction()
            self.take(")")
            return value
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "number":
            return float(text)
        if kind != "name":
            raise ExpressionError(f"unexpected {text!r}")
        if text in ("true", "false"):
            return text == "true"
        if text == "null":
            return None
        if self.peek() == "(":
            return self.call(text)
        if text not in self.contexts:
            raise ExpressionError(f"unknown context {text!r}")
        return self.properties(self.contexts[text])

    def call(self, name: str) -> Any:
        function = self.functions.get(name.lower())
        if function is None:
            raise ExpressionError(f"unsupported function {name}()")
        self.take("(")
        arguments: list[Any] = []
        while self.peek() != ")":
            arguments.append(self.disjunction())
            if self.peek() == ",":
                self.take()
        self.take(")")
        return function(*arguments)

    def properties(self, value: Any) -> Any:
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                key: Any = self.take()[1]
            else:
                key = self.disjunction()
                self.take("]")
            value = value.get(to_string(key)) if isinstance(value, dict) else None
        return value


def string_functions() -> dict[str, Callable[..., Any]]:
    def contains(haystack: Any, needle: Any) -> bool:
        if isinstance(haystack, list):
            return any(loosely_equal(item, needle) for item in haystack)
        return to_string(needle).casefold() in to_string(haystack).casefold()

    return {
        "contains": contains,
        "startswith": lambda text, prefix: to_string(text).casefold().startswith(to_string(prefix).casefold()),
        "endswith": lambda text, suffix: to_string(text).casefold().endswith(to_string(suffix).casefold()),
    }


def substitute(text: str, evaluator: Evaluator) -> str:
    """Replace every `${{ … }}` in a string value (with:, env:, working-directory:, outputs' value:)."""
    return TEMPLATE.sub(lambda match: to_string(evaluator.evaluate(match.group(1))), text)


def condition(text: Any, evaluator: Evaluator) -> bool:
    """An `if:`: `${{ }}` optional; without a status function it means `success() && (…)`."""
    if isinstance(text, bool):
        text = "true" if text else "false"
    expression = str(text).strip()
    match = TEMPLATE.fullmatch(expression)
    if match:
        expression = match.group(1).strip()
    if not STATUS_FUNCTIONS.search(expression):
        expression = f"success() && ({expression})"
    return truthy(evaluator.evaluate(expression))
