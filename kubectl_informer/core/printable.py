"""Text that did not come from us, made safe to show in a terminal.

Every string a server, a recording, a metrics page or a file controls (an
object's name, a label, a status message, an Event, an error body) goes
through ``printable`` (one line) or ``printable_lines`` (a block: line
breaks and tabs kept) at the point where it is shown. A terminal reads
some characters as commands, not text: ESC starts the sequences that move
the cursor, recolour, set the window title or write the clipboard (OSC 52);
C1 controls (U+0080-U+009F, e.g. U+009B, a one-character CSI) do the same on
terminals that take them; CR and BS overwrite what was shown; bidi
overrides and isolates reorder what follows (the "Trojan Source" trick) and
zero-width characters hide text inside a name.

Each such character is shown as its escape, in the form Go's ``%q`` and
Python's ``repr`` use: ``\\x1b``, ``\\x9b``, ``\\r``, ``\\n``, ``\\t``,
``\\u202e``, ``\\u200b``, ``\\U000e0001``. Which characters: Unicode's
"Other" categories, Cc (C0, DEL, C1), Cf (format: bidi controls, zero-width
characters, the BOM, soft hyphen, tags), Cs (a lone surrogate, which could
not even be encoded) and Cn (unassigned), and the line and paragraph
separators (Zl, Zp). Everything else is shown as it is: letters of any
script, marks, emoji, spaces (Zs), private-use characters.

kubectl's printers (cli-runtime's ``printers.EscapeTerminal``, the fix of
CVE-2021-25743) replace only ESC (as ``^[``) and CR; this rule is wider and
its form says which character was there. Like kubectl's, it cannot be
reversed: a name holding the four characters ``\\x1b`` reads the same.
"""

from __future__ import annotations

import unicodedata

# Categories whose characters are escaped (see the module docstring).
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"})
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_char(ch: str) -> str:
    """``ch`` as it is shown when it may not reach the terminal: ``\\x1b``,
    ``\\n``, ``\\u202e``, ``\\U000e0001``."""
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def is_shown_raw(ch: str) -> bool:
    """Whether ``ch`` may reach the terminal as it is."""
    return ch.isprintable() or unicodedata.category(ch) not in ESCAPED_CATEGORIES


def printable(text: str) -> str:
    """``text`` safe to show on one line: every character a terminal could
    act on (or that hides or reorders text) escaped, line breaks and tabs
    too. A string with nothing to escape is returned as it is (the same
    object: the UI calls this for every row it draws)."""
    if text.isprintable():
        return text
    return "".join(ch if is_shown_raw(ch) else escape_char(ch) for ch in text)


def printable_lines(text: str) -> str:
    """``text`` safe to show as a block: as ``printable``, but line breaks
    (``\\n``) and tabs are kept (a YAML document, a traceback)."""
    if text.isprintable():
        return text
    return "".join(ch if ch in "\n\t" or is_shown_raw(ch) else escape_char(ch) for ch in text)


def json_escaped(line: str) -> str:
    """A JSON document's text with every character ``printable`` would
    escape written as JSON's own ``\\uXXXX`` escape (a surrogate pair
    above U+FFFF): the same document for a parser, nothing a terminal acts
    on. JSON itself only requires C0 controls to be escaped, so an encoder
    leaves C1 controls, bidi overrides and zero-width characters raw; such
    characters only occur inside strings, where the escape is valid."""
    if line.isprintable():
        return line
    out = []
    for ch in line:
        if is_shown_raw(ch) or ch in "\n\t":  # outside strings: JSON's whitespace
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            high, low = divmod(ord(ch) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    return "".join(out)
