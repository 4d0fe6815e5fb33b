"""Drawing the Cache pane from its state.

What the pane knows, and why: ``panes/cache.py``.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from kubectl_informer.panes.cache import CacheState
from kubectl_informer.tui.textpane import TextPane


class CachePane(TextPane):
    """Object count, then a bar per namespace, largest first; ``v`` turns
    to each index in turn: its values and the keys under each (ByIndex)."""

    TITLE = "Cache"
    BINDINGS = [Binding("v", "next_view", "Objects/index", show=False)]
    state: CacheState

    def __init__(self, state: CacheState, **kwargs) -> None:
        super().__init__(state, **kwargs)
        self._counted: tuple | None = None  # (state version, filter text, counts): one count per change
        self.view = ""  # "": objects per namespace; else the index shown

    def action_next_view(self) -> None:
        """Objects → each index → objects again."""
        views = ["", *self.state.indexes.names]
        self.view = views[(views.index(self.view) + 1) % len(views)] if self.view in views else ""
        self.border_title = f"{self.TITLE} · index {self.view}" if self.view else self.TITLE
        self.refresh()

    def _index_lines(self, width: int, height: int) -> list[Text]:
        view, st = self.state.indexes, self.state
        fig = view.figures(self.view)
        head = Text(no_wrap=True)
        head.append(f"index {self.view}", "bold")
        head.append(f" = {fig['source'] or '?'}  ", "magenta")
        head.append("v: next view", "dim")
        lines = [
            head,
            Text(
                f"{fig['values']} values, {fig['keys']} keys, {fig['per_value']:.1f} keys per value  "
                f"(ByIndex({self.view}, value) lists a value's keys)",
                "dim",
                no_wrap=True,
            ),
        ]
        rows = view.rows(self.view, None if self.filter_text else max(height, 1))
        total = len(rows) if self.filter_text else view.value_count(self.view)
        if self.filter_text:
            match, keys = self.key_filter.matches, st.keys
            rows = [
                (v, ks)
                for v, ks in ((v, [k for k in ks if match(k, *keys.get(k, ("", None)))]) for v, ks in rows)
                if ks
            ]
            lines.append(Text(f"filter /{self.filter_text}: {len(rows)} values hold a match", "reverse", no_wrap=True))
        if not rows:
            lines.append(
                Text("no object has a value on this index" if not self.filter_text else "no object matches", "dim")
            )
            return lines
        val_w = min(max(len(v) for v, _ in rows[:height]), max(width // 3, 8))
        num_w = len(str(len(rows[0][1])))
        if not self.filter_text:
            total = max(total, len(rows))
        for i, (value, held) in enumerate(rows):
            if len(lines) >= height - 1 and i < total - 1:
                lines.append(Text(f"… {total - i} more values", "dim"))
                break
            line = Text(no_wrap=True)
            line.append(f"{value[:val_w]:<{val_w}} ", "bold")
            line.append(f"{len(held):>{num_w}}  ")
            shown, room = [], width - val_w - num_w - 3
            for k in held:  # as many keys as the row has room for: the rest are cut anyway
                room -= len(k) + 1
                shown.append(k)
                if room <= 0:
                    break
            line.append(" ".join(shown), "cyan")
            lines.append(line)
        return lines

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
        if self.view and self.view in st.indexes.names:
            return self._index_lines(width, height)
        now = self.now if self.now is not None else st.last_time
        head = Text(no_wrap=True)
        head.append(f"{st.count} objects", "bold")
        n_ns = len(st.per_ns)
        head.append(f" in {n_ns} namespace{'' if n_ns == 1 else 's'}  ", "")
        head.append(f"{st.rate.rate(now):.0f} ops/s", "dim")
        if st.indexes.names:
            n = len(st.indexes.names)
            head.append(f"  v: {n} index{'' if n == 1 else 'es'}", "dim")
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
            lines.append(
                Text(
                    f"filter /{self.filter_text}: {sum(n for _, n in nss)} objects match  {self.key_filter.note}",
                    "reverse",
                    no_wrap=True,
                )
            )
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
