"""Bytes read as Go's standard library reads them, refused in its words:
``base64.RawURLEncoding.DecodeString`` and the syntax check ``json.Unmarshal``
runs before it decodes (encoding/json's scanner). kube-apiserver reads a
continue token with both (``storage.DecodeContinue``), and a refused token's
message quotes their errors.
"""

from __future__ import annotations

from kubectl_informer.core.names import go_quote

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DECODE = {ord(c): i for i, c in enumerate(_ALPHABET)}
END_OF_INPUT = "unexpected end of JSON input"


class GoError(ValueError):
    """A decoding error; ``str()`` is Go's ``err.Error()``."""


def raw_url_b64decode(raw: bytes) -> bytes:
    """``base64.RawURLEncoding.DecodeString``: no padding; "\\r" and "\\n"
    skipped; a lone last character or any other byte is "illegal base64
    data at input byte N" (``CorruptInputError``, as ``decodeQuantum`` counts)."""
    out = bytearray()
    si, n = 0, len(raw)
    while si < n:
        quantum: list[int] = []
        while len(quantum) < 4:
            if si == n:
                if len(quantum) == 1:
                    raise GoError(f"illegal base64 data at input byte {si - 1}")
                break
            c = raw[si]
            si += 1
            if c in _DECODE:
                quantum.append(_DECODE[c])
            elif c not in (10, 13):
                raise GoError(f"illegal base64 data at input byte {si - 1}")
        if not quantum:
            break
        val = 0
        for k in range(4):
            val = val << 6 | (quantum[k] if k < len(quantum) else 0)
        out += val.to_bytes(3, "big")[: len(quantum) - 1]
    return bytes(out)


def _quote_char(c: int | None) -> str:
    """encoding/json's ``quoteChar`` (the end of input reads as the space
    that ``scanner.eof`` steps with)."""
    if c is None:
        c = 0x20
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    return "'" + go_quote(chr(c))[1:-1] + "'"


class _Scanner:
    """encoding/json's ``checkValid`` as a recursive reader: each error is
    the one its state machine gives at the same byte."""

    def __init__(self, data: bytes) -> None:
        self.data, self.i = data, 0

    def peek(self) -> int | None:
        return self.data[self.i] if self.i < len(self.data) else None

    def fail(self, c: int | None, context: str) -> GoError:
        return GoError(f"invalid character {_quote_char(c)} {context}")

    def blanks(self) -> int | None:
        while self.peek() in (0x20, 0x09, 0x0A, 0x0D):
            self.i += 1
        return self.peek()

    def check(self) -> None:
        self.value()
        c = self.blanks()
        if c is not None:
            raise self.fail(c, "after top-level value")

    def value(self) -> None:
        c = self.blanks()
        if c is None:
            raise GoError(END_OF_INPUT)
        if c == ord("{"):
            self.obj()
        elif c == ord("["):
            self.array()
        elif c == ord('"'):
            self.string()
        elif c == ord("-") or ord("0") <= c <= ord("9"):
            self.number()
        elif c in b"tfn":
            self.literal({ord("t"): "true", ord("f"): "false", ord("n"): "null"}[c])
        else:
            raise self.fail(c, "looking for beginning of value")

    def obj(self) -> None:
        self.i += 1
        if self.blanks() == ord("}"):
            self.i += 1
            return
        while True:
            c = self.blanks()
            if c != ord('"'):
                raise GoError(END_OF_INPUT) if c is None else self.fail(c, "looking for beginning of object key string")
            self.string()
            c = self.blanks()
            if c != ord(":"):
                raise GoError(END_OF_INPUT) if c is None else self.fail(c, "after object key")
            self.i += 1
            self.value()
            c = self.blanks()
            self.i += 1
            if c == ord("}"):
                return
            if c != ord(","):
                raise GoError(END_OF_INPUT) if c is None else self.fail(c, "after object key:value pair")

    def array(self) -> None:
        self.i += 1
        if self.blanks() == ord("]"):
            self.i += 1
            return
        while True:
            self.value()
            c = self.blanks()
            self.i += 1
            if c == ord("]"):
                return
            if c != ord(","):
                raise GoError(END_OF_INPUT) if c is None else self.fail(c, "after array element")

    def string(self) -> None:
        self.i += 1
        while True:
            c = self.peek()
            self.i += 1
            if c is None:
                raise GoError(END_OF_INPUT)
            if c == ord('"'):
                return
            if c < 0x20:
                raise self.fail(c, "in string literal")
            if c == ord("\\"):
                self.escape()

    def escape(self) -> None:
        c = self.peek()
        self.i += 1
        if c is None:
            raise GoError(END_OF_INPUT)
        if c == ord("u"):
            for _ in range(4):
                h = self.peek()
                self.i += 1
                if h is None:
                    raise GoError(END_OF_INPUT)
                if h not in b"0123456789abcdefABCDEF":
                    raise self.fail(h, "in \\u hexadecimal character escape")
        elif c not in b'bfnrt\\/"':
            raise self.fail(c, "in string escape code")

    def digits(self) -> None:
        while (c := self.peek()) is not None and ord("0") <= c <= ord("9"):
            self.i += 1

    def number(self) -> None:
        if self.peek() == ord("-"):
            self.i += 1
        c = self.peek()
        if c is None or not ord("0") <= c <= ord("9"):
            raise self.fail(c, "in numeric literal")
        self.i += 1
        if c != ord("0"):
            self.digits()
        if self.peek() == ord("."):
            self.i += 1
            c = self.peek()
            if c is None or not ord("0") <= c <= ord("9"):
                raise self.fail(c, "after decimal point in numeric literal")
            self.digits()
        if self.peek() in (ord("e"), ord("E")):
            self.i += 1
            if self.peek() in (ord("+"), ord("-")):
                self.i += 1
            c = self.peek()
            if c is None or not ord("0") <= c <= ord("9"):
                raise self.fail(c, "in exponent of numeric literal")
            self.digits()

    def literal(self, word: str) -> None:
        self.i += 1
        for want in word[1:]:
            c = self.peek()
            if c != ord(want):
                raise self.fail(c, f"in literal {word} (expecting '{want}')")
            self.i += 1


def check_json(data: bytes) -> None:
    """Raise GoError with encoding/json's ``SyntaxError`` text unless ``data``
    is one valid JSON value (blanks around it allowed)."""
    _Scanner(data).check()
