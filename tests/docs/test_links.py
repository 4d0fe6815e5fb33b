"""Links between docs pages resolve: the page exists and so does the anchor
(an explicit <a id="..."> or a heading, slugged as GitHub slugs it)."""

from __future__ import annotations

import re

from .doc_commands import DOCS, FENCE, ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    text = FENCE.sub("", text)
    found = set(re.findall(r'<a id="([^"]+)"></a>', text))
    found |= {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}
    return found


def test_slug_is_githubs():
    assert slug("Profiles (`--client-go`, `--fifo`, `--watch-list`)") == "profiles---client-go---fifo---watch-list"
    assert slug("pods/proxy") == "podsproxy"


def test_every_link_between_docs_pages_resolves():
    pages = {p.name: p.read_text() for p in DOCS.glob("*.md")}
    broken, checked = [], 0
    for name, text in sorted(pages.items()):
        for target in LINK.findall(FENCE.sub("", text)):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto
            path, _, anchor = target.partition("#")
            checked += 1
            where = (DOCS / path).resolve() if path else DOCS / name
            if not where.exists():
                broken.append(f"docs/{name}: {target} (no such file)")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where.read_text()):
                broken.append(f"docs/{name}: {target} (no such anchor)")
    assert checked > 40 and not broken, "\n".join(broken)


def test_readme_links_into_docs_resolve():
    text = (ROOT / "README.md").read_text()
    for target in LINK.findall(text):
        if target.startswith("docs/"):
            assert (ROOT / target.partition("#")[0]).exists(), target
