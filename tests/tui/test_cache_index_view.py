"""The Cache pane's index view drawn from its state: `v` walks objects →
namespace → byNode → objects; rows are values, most keys first, with the
keys (ByIndex); the filter keeps matching keys; a short pane says how many
values it could not show."""

from __future__ import annotations

from kubectl_informer.panes.cache import CacheState
from kubectl_informer.tui.cache import CachePane
from tests.panes.test_indexes import run


def pane_after(ops) -> CachePane:
    _, events = run(ops)
    st = CacheState()
    for ev in events:
        st.feed(ev)
    return CachePane(st)


def plain(pane, width=60, height=12):
    return [line.plain for line in pane.draw_lines(width, height)]


def test_v_walks_the_views_and_each_index_lists_its_values_and_keys():
    pane = pane_after(
        [
            ("add", "a", "node-1"),
            ("add", "b", "node-1"),
            ("add", "c", "node-2"),
            ("add", "d", None),
            ("update", "b", "node-2"),
            ("update", "c", "node-2"),
        ]
    )
    assert plain(pane)[0].startswith("4 objects in 4 namespaces") and "v: 2 indexes" in plain(pane)[0]
    pane.action_next_view()
    assert pane.view == "namespace" and plain(pane)[0].startswith("index namespace = metadata.namespace")
    pane.action_next_view()
    lines = plain(pane)
    assert lines[0].startswith("index byNode = spec.nodeName")
    assert lines[1].startswith("2 values, 3 keys, 1.5 keys per value")  # d has no node: under no value
    assert lines[2:] == ["node-2 2  ns-b/b ns-c/c", "node-1 1  ns-a/a"]  # b moved; most keys first
    pane.set_filter("ns-c")
    assert plain(pane)[2:] == ["filter /ns-c: 1 values hold a match", "node-2 1  ns-c/c"]
    pane.set_filter("")
    pane.action_next_view()
    assert pane.view == "" and plain(pane)[0].startswith("4 objects")


def test_a_short_pane_says_how_many_values_it_leaves_out():
    pane = pane_after([("add", n, None) for n in "abcd"])
    pane.view = "namespace"
    assert plain(pane, height=4)[2:] == ["ns-a 1  ns-a/a", "… 3 more values"]
