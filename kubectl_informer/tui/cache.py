"""Drawing the Cache pane from its state.

What the pane knows, and why: ``panes/cache.py``.
"""

from __future__ import annotations

from rich.text import Text

from kubectl_informer.panes.cache import CacheState
from kubectl_informer.tui.textpane import TextPane


class CachePane(TextPane):
    """Object count, then a bar per namespace, largest first."""

    TITLE = "Cache"
    state: CacheState

    def __init__(self, state: CacheState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self._counted: tuple | None = None  # (state version, filter text, counts): one count per change

    def _namespaces(self) -> list[tuple[str, int]]:
        st = self.state
        if not self.key_filter:
            return st.per_ns.most_common()
        mark = (id(st), st.version, self.filter_text)
        if self._counted is None or self._counted[0] != mark:
            self._counted = (mark, st.count_matching(self.key_filter).most_common())
        return self._counted[1]

    def draw_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        now = self.now if self.now is not None else st.last_time
        head = Text(no_wrap=True)
        head.append(f"{st.count} objects", "bold")
        n_ns = len(st.per_ns)
        head.append(f" in {n_ns} namespace{'' if n_ns == 1 else 's'}  ", "")
        head.append(f"{st.rate.rate(now):.0f} ops/s", "dim")
        lines = [head]
        ops = Text(no_wrap=True)
        ops.append(f"adds {st.ops['add']}  ", "green")
        ops.append(f"updates {st.ops['update']}  ", "yellow")
        ops.append(f"deletes {st.ops['delete']}", "red")
        if st.synced_items is not None:
            ops.append(f"  synced with {st.synced_items}", "dim")
        lines.append(ops)
        lines += st.sizes.lines(st.count)
        nss = self._namespaces()
        if self.filter_text:
            lines.append(Text(f"filter /{self.filter_text}: {sum(n for _, n in nss)} objects match  "
                              f"{self.key_filter.note}", "reverse", no_wrap=True))
        if not nss:
            lines.append(Text("cache empty" if not self.filter_text else "no object matches", "dim"))
            return lines
        room = height - len(lines)
        if room <= 0:  # a pane a resize left a few rows high: the counts only
            return lines
        name_w = min(max(len(ns) for ns, _ in nss[:room]), max(width // 3, 8))
        top = nss[0][1] or 1
        num_w = len(str(top))
        bar_w = max(width - name_w - num_w - 3, 1)
        for i, (ns, n) in enumerate(nss):
            if len(lines) >= height:
                break
            if i == room - 1 and len(nss) > room:
                lines.append(Text(f"… {len(nss) - i} more namespaces", "dim"))
                break
            line = Text(no_wrap=True)
            line.append(f"{ns:<{name_w}} ", "bold")
            line.append(f"{n:>{num_w}} ")
            line.append("█" * max(1, round(bar_w * n / top)), "blue")
            lines.append(line)
        return lines
