"""The one rule for text that did not come from us (core/printable.py):
for any string, what is shown holds no character a terminal acts on, and
printable text comes back unchanged."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.core.printable import ESCAPED_CATEGORIES, json_escaped, printable, printable_lines

# What the brief names, each by its code point: C0, ESC, DEL, C1, bidi
# embeddings/overrides/isolates and marks, zero-width characters, the BOM.
DANGEROUS = (
    [chr(c) for c in range(0x20)]
    + ["\x7f"]
    + [chr(c) for c in range(0x80, 0xA0)]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u2028", "\u2029"]
)


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in ESCAPED_CATEGORIES


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)))
def test_nothing_unsafe_is_left_in_any_string(s):
    out = printable(s)
    assert not any(_unsafe(ch) for ch in out)
    assert not any(ch in out for ch in DANGEROUS)
    block = printable_lines(s)
    assert not any(_unsafe(ch) for ch in block if ch not in "\n\t")


@given(st.text(alphabet=st.characters(blacklist_categories=tuple(ESCAPED_CATEGORIES))))
def test_printable_text_is_unchanged(s):
    assert printable(s) == s
    assert printable_lines(s) == s


@given(st.text(alphabet=st.sampled_from(DANGEROUS + list("ab é漢🙂"))))
def test_each_dangerous_character_is_shown_as_its_escape(s):
    out = printable(s)
    expected = "".join(repr(ch)[1:-1] if ch in DANGEROUS else ch for ch in s)
    assert out == expected


def test_the_forms():
    assert printable("a\x1b]52;c;ZWNobw==\x07b") == "a\\x1b]52;c;ZWNobw==\\x07b"
    assert printable("\x9b31m\u202eevil\u200b") == "\\x9b31m\\u202eevil\\u200b"
    assert printable("tab\there\r\nnext") == "tab\\there\\r\\nnext"
    assert printable_lines("tab\there\r\nnext") == "tab\there\\r\nnext"
    assert printable("\U000e0041") == "\\U000e0041"  # a tag character (Cf)
    assert printable("\ud800") == "\\ud800"  # a lone surrogate: could not even be encoded


def test_a_string_with_nothing_to_escape_is_the_same_object():
    s = "default/web-1 rv=1234 Running 漢字 🙂"
    assert printable(s) is s
    assert printable_lines(s) is s
    nbsp = "a\u00a0b\ue000"  # a no-break space and a private-use character: shown as they are
    assert printable(nbsp) == nbsp


@given(
    st.recursive(
        st.text() | st.integers() | st.none(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    )
)
def test_json_escaped_is_the_same_document_with_nothing_unsafe(doc):
    text = json.dumps(doc, ensure_ascii=False)  # as orjson: only C0 controls escaped
    out = json_escaped(text)
    assert json.loads(out) == doc
    assert not any(_unsafe(ch) for ch in out)


def test_a_pane_row_keeps_its_styles_on_the_characters_they_styled():
    from rich.text import Text

    from kubectl_informer.tui.printable_text import printable_row, printable_text

    row = Text.assemble(("Updated", "bold"), " ", ("a\x1bb\u202ec", "cyan"), " rv=1")
    out = printable_row(row)
    assert out.plain == "Updated a\\x1bb\\u202ec rv=1"
    assert [(out.plain[s.start : s.end], s.style) for s in out.spans] == [
        ("Updated", "bold"),
        ("a\\x1bb\\u202ec", "cyan"),
    ]
    plain = Text("Updated default/web-1 漢 🙂")
    assert printable_row(plain) is plain
    block = printable_text(Text("line\x1b1\nline\t2"))
    assert block.plain == "line\\x1b1\nline\t2"
