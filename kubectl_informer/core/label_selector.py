"""Label selectors parsed and matched as apimachinery's ``labels.Parse`` does.

The grammar of k8s.io/apimachinery/pkg/labels/selector.go: a ``Lexer`` that
cuts the text into identifiers, the keywords ``in``/``notin`` and the
operator symbols (the longest of ``= == != ! ( ) , > <``), and a ``Parser``
that reads comma-joined requirements from them, each checked as
``NewRequirement`` checks it. Errors carry kube-apiserver's words: "found
'%s', expected: ..." from the parser (with "unable to parse requirement: "
in front when it came from inside one requirement), the key and value
problems of ``label_validation`` as ``field.Invalid`` prints them.

Quirks kept because the server has them: ``in``/``notin`` are identifiers
wherever a key or value is read (``in in (notin)`` is valid); ``a in ()``
holds the empty value; ``a=`` compares with ""; a NUL byte reads as the
end (``Lexer.read`` returns 0 there): where a token would start it ends the
selector, after a token it only ends that token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubectl_informer.core.go_json import go_json
from kubectl_informer.core.go_strconv import int64_or_none
from kubectl_informer.core.label_validation import (
    aggregate,
    invalid,
    invalid_rendered,
    label_key_problems,
    label_value_problems,
)

# selection.Operator values.
IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
GREATER_THAN, LESS_THAN, EXISTS, DOES_NOT_EXIST = "gt", "lt", "exists", "!"
BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)

# Tokens: the literal of a symbol or keyword is its own token name. (The Go lexer's ErrorToken
# never comes out of it: every special character starts a symbol.)
IDENT, END = "identifier", "end"
_SYMBOLS = frozenset(["=", "==", "!=", "!", "(", ")", ",", ">", "<"])
_KEYWORDS = frozenset([IN, NOT_IN])
_SPECIAL = frozenset("=!(),><")
_BLANK = frozenset(" \t\r\n")
_BY_TOKEN = {"=": EQUALS, "==": DOUBLE_EQUALS, "!=": NOT_EQUALS, ">": GREATER_THAN, "<": LESS_THAN}
_BY_TOKEN.update({IN: IN, NOT_IN: NOT_IN})


class SelectorError(ValueError):
    """A selector ``labels.Parse`` refuses; ``str()`` is its error text."""


@dataclass(frozen=True)
class Requirement:
    """``labels.Requirement``: a key, an operator, its values (sorted, no
    duplicates, as the parser hands ``sets.String.List()`` over)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, Any]) -> bool:
        """``Requirement.Matches``: a missing label fails in/=/==/gt/lt and
        satisfies notin/!=; gt/lt need integers on both sides."""
        op, present = self.operator, self.key in labels
        if op == EXISTS:
            return present
        if op == DOES_NOT_EXIST:
            return not present
        value = labels.get(self.key)
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return present and value in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return not present or value not in self.values
        if op in (GREATER_THAN, LESS_THAN) and present and len(self.values) == 1:
            have = int64_or_none(value) if type(value) is str else None
            want = int64_or_none(self.values[0])
            if have is None or want is None:
                return False
            return have > want if op == GREATER_THAN else have < want
        return False

    def matcher(self) -> Callable[[dict[str, Any]], bool]:
        """``matches`` as one closure per operator (a LIST tests every object)."""
        key, values = self.key, self.values
        op = self.operator
        if op == EXISTS:
            return lambda labels: key in labels
        if op == DOES_NOT_EXIST:
            return lambda labels: key not in labels
        # A label's value is a string, never None: get() stands for the lookup and presence at once.
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            if len(values) == 1:
                only = values[0]
                return lambda labels: labels.get(key) == only
            return lambda labels: labels.get(key) in values
        if op in (NOT_IN, NOT_EQUALS):
            if len(values) == 1:
                only = values[0]
                return lambda labels: labels.get(key) != only
            return lambda labels: labels.get(key) not in values
        want = int64_or_none(self.values[0]) if len(self.values) == 1 else None
        if want is None:
            return lambda labels: False
        above = op == GREATER_THAN

        def compare(labels: dict[str, Any]) -> bool:
            value = labels.get(key)
            have = int64_or_none(value) if type(value) is str else None
            return have is not None and (have > want if above else have < want)

        return compare

    def __str__(self) -> str:
        """``Requirement.String``: the text that parses back to it."""
        if self.operator == DOES_NOT_EXIST:
            return "!" + self.key
        if self.operator == EXISTS:
            return self.key
        sign = {IN: " in ", NOT_IN: " notin ", GREATER_THAN: ">", LESS_THAN: "<"}.get(self.operator, self.operator)
        joined = ",".join(sorted(self.values))
        if self.operator in (IN, NOT_IN):
            joined = f"({joined})"
        return self.key + sign + joined


def lex(text: str) -> list[tuple[str, str]]:
    """``Lexer.Lex`` to the end: (token, literal) pairs ending with END."""
    items: list[tuple[str, str]] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos] in _BLANK:
            pos += 1
        if pos >= n or text[pos] == "\0":
            items.append((END, ""))
            return items
        start = pos
        if text[pos] in _SPECIAL:
            # The longest symbol: one character, or two when they make one.
            pos += 2 if text[pos : pos + 2] in _SYMBOLS else 1
            items.append((text[start:pos], text[start:pos]))
        else:
            while pos < n and text[pos] not in _SPECIAL and text[pos] not in _BLANK and text[pos] != "\0":
                pos += 1
            word = text[start:pos]
            items.append((word if word in _KEYWORDS else IDENT, word))
        if pos < n and text[pos] == "\0":
            pos += 1  # the scan read the 0 that ended the token and does not give it back


class _Parser:
    """``labels.Parser`` over the lexed items."""

    def __init__(self, text: str) -> None:
        self.items = lex(text)
        self.pos = 0

    def peek(self, values: bool = True) -> tuple[str, str]:
        """``lookahead``: in the Values context a keyword is an identifier."""
        tok, lit = self.items[self.pos]
        return (IDENT if values and tok in _KEYWORDS else tok), lit

    def take(self, values: bool = True) -> tuple[str, str]:
        """``consume``."""
        item = self.peek(values)
        self.pos += 1
        return item

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            tok, lit = self.peek()
            if tok == END:
                return reqs
            if tok not in (IDENT, "!"):
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                reqs.append(self.requirement())
            except SelectorError as e:
                raise SelectorError(f"unable to parse requirement: {e}") from None
            tok, lit = self.take()
            if tok == END:
                return reqs
            if tok != ",":
                raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            tok, lit = self.peek()
            if tok not in (IDENT, "!"):
                raise SelectorError(f"found '{lit}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        """``parseRequirement``: key, operator (inferred for ``a``/``!a``), values."""
        key, op = self.key_and_inferred_operator()
        if op in (EXISTS, DOES_NOT_EXIST):
            return new_requirement(key, op, [])
        tok, lit = self.take(values=False)
        if tok not in _BY_TOKEN:
            raise SelectorError(f"found '{lit}', expected: {', '.join(BINARY_OPERATORS)}")
        op = _BY_TOKEN[tok]
        values = self.value_set() if op in (IN, NOT_IN) else self.exact_value()
        return new_requirement(key, op, sorted(set(values)))

    def key_and_inferred_operator(self) -> tuple[str, str]:
        op = ""
        tok, lit = self.take()
        if tok == "!":
            op = DOES_NOT_EXIST
            tok, lit = self.take()
        if tok != IDENT:
            raise SelectorError(f"found '{lit}', expected: identifier")
        problems = label_key_problems(lit)
        if problems:
            raise SelectorError(invalid("<nil>", lit, "; ".join(problems)))
        if self.peek()[0] in (END, ",") and op != DOES_NOT_EXIST:
            op = EXISTS
        return lit, op

    def value_set(self) -> list[str]:
        """``parseValues``: ``(a,b,...)``; ``()`` and empty slots hold ""."""
        tok, lit = self.take()
        if tok != "(":
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.peek()
        if tok == ")":
            self.take()
            return [""]
        if tok not in (IDENT, ","):
            raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")
        values = self.identifiers()
        self.take()  # the ")" identifiers() stopped at
        return values

    def identifiers(self) -> list[str]:
        """``parseIdentifiersList``: up to (not over) the closing ")"."""
        values: list[str] = []
        while True:
            tok, lit = self.take()
            if tok == IDENT:
                values.append(lit)
                tok2, lit2 = self.peek()
                if tok2 == ")":
                    return values
                if tok2 != ",":
                    raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            elif tok == ",":
                following = self.peek()[0]
                if not values or following in (")", ","):
                    values.append("")
                if following == ")":
                    return values
            else:
                raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> list[str]:
        """``parseExactValue``: one identifier, or "" before "," or the end."""
        if self.peek()[0] in (END, ","):
            return [""]
        tok, lit = self.take()
        if tok == IDENT:
            return [lit]
        raise SelectorError(f"found '{lit}', expected: identifier")


def _arity_problem(op: str, n: int) -> str | None:
    """How many values ``NewRequirement`` wants for ``op``, when ``n`` is wrong."""
    if op in (IN, NOT_IN) and n == 0:
        return "for 'in', 'notin' operators, values set can't be empty"
    if op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS) and n != 1:
        return "exact-match compatibility requires one single value"
    if op in (EXISTS, DOES_NOT_EXIST) and n != 0:
        return "values set must be empty for exists and does not exist"
    if op in (GREATER_THAN, LESS_THAN) and n != 1:
        return "for 'Gt', 'Lt' operators, exactly one value is required"
    return None


def new_requirement(key: str, op: str, values: list[str] | None) -> Requirement:
    """``NewRequirement``'s checks, with no path (keys print as ``key``, the
    value list as ``values`` and a value as ``values[i][key]``). ``values``
    None is Go's nil slice (printed ``null``), [] an empty one."""
    errs: list[str] = []
    problems = label_key_problems(key)
    if problems:
        errs.append(invalid("key", key, "; ".join(problems)))
    arity = _arity_problem(op, len(values or ()))
    if arity:
        errs.append(invalid_rendered("values", go_json(values), arity))
    if op in (GREATER_THAN, LESS_THAN):
        for i, v in enumerate(values or ()):
            if int64_or_none(v) is None:
                errs.append(invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(values or ()):
        problems = label_value_problems(v)
        if problems:
            errs.append(invalid(f"values[{i}][{key}]", v, "; ".join(problems)))
    if errs:
        raise SelectorError(aggregate(errs))
    return Requirement(key, op, tuple(values or ()))


def parse(text: str) -> list[Requirement]:
    """``labels.Parse``: the requirements, sorted by key (stable here); an
    empty list selects everything. Raises SelectorError."""
    return sorted(_Parser(text).parse(), key=lambda r: r.key)


def render(reqs: list[Requirement]) -> str:
    """``internalSelector.String``."""
    return ",".join(str(r) for r in reqs)
