"""What the Queue pane and the Informers pane know of staleness, from
hand-written traces: skips, the catch-up, duplicate creates, the switch, and
each store's RV and lag."""

from __future__ import annotations

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.panes.informers import InformersState
from kubectl_informer.panes.queue import QueueState
from kubectl_informer.tui.informers import behind_note
from kubectl_informer.tui.queue import render_queue

KEY = "default/web"


def ev(seq, t, kind, key=None, **f):
    return TraceEvent.build(seq, t, kind, key, **f)


def skip(seq, t, actual="101"):
    return ev(seq, t, "queue.stale_skip", KEY, group="", resource="pods", expected="105", actual=actual, skips=seq)


def write(seq, t, verb="create", duplicate=False, consistency=True, rv="105"):
    return ev(
        seq,
        t,
        "controller.write",
        KEY,
        verb=verb,
        resource="pods",
        name=f"web-{seq}",
        resource_version=rv,
        duplicate=duplicate,
        consistency=consistency,
    )


def test_skips_then_the_catch_up():
    st = QueueState()
    st.feed_all(
        [
            write(1, 1.0),
            ev(2, 1.0, "informer.store_rv", informer="pods", store_rv="101", server_rv="106", lag=5, source="sim"),
            skip(3, 1.2),
            skip(4, 1.5),
            ev(5, 1.5, "queue.get", KEY, depth=0, worker=1),
            ev(6, 2.0, "queue.done", KEY, requeued=False, worker=1, outcome="ok"),
        ]
    )
    s = st.stale
    assert (s.consistency, s.skips, s.skips_by_resource, s.catch_ups) == (True, 2, {"pods": 2}, 1)
    assert s.last_catch_up == (KEY, 2, 0.8)
    assert s.written_vs_read(KEY) == ("pods", "105", "101", "behind")
    st.feed(ev(7, 2.1, "informer.store_rv", informer="pods", store_rv="106", server_rv="106", lag=0, source="sim"))
    assert s.written_vs_read(KEY)[3] == "caught up"
    text = render_queue(st, 2.5, 160, 30).plain
    assert "read-your-own-writes ON · stale-sync skips 2 (pods 2)" in text
    assert "caught up 1×, last default/web after 2 skips (0.8s)" in text and "no duplicate create" in text


def test_duplicates_once_switched_off():
    st = QueueState()
    st.feed_all(
        [
            write(1, 1.0),
            ev(2, 2.0, "controller.consistency", enabled=False),
            write(3, 3.0, duplicate=True, consistency=False),
            write(4, 3.0, duplicate=True, consistency=False),
        ]
    )
    assert st.stale.consistency is False and st.stale.duplicates == 2 and st.bad_events == 0
    text = render_queue(st, 3.5, 160, 30).plain
    assert "read-your-own-writes OFF" in text and "2 duplicate creates (acted on a stale cache)" in text


def test_informers_rows_show_store_rv_and_lag():
    st = InformersState()
    st.feed(ev(1, 1.0, "informer.store_rv", informer="pods", store_rv="101", server_rv="106", lag=5, source="sim"))
    row = st.rows["pods"]
    assert (row.store_rv, row.server_rv, row.lag, row.max_lag) == ("101", "106", 5, 5)
    assert "exact" in behind_note(st)
    old = InformersState()
    old.feed(ev(1, 1.0, "informer.store_rv", informer="pods", store_rv="", server_rv="106", lag=None, source="sim"))
    assert "client-go < 1.36" in behind_note(old)


def test_before_1_36_the_check_sees_nothing_and_says_so():
    st = QueueState()
    st.feed_all(
        [
            ev(1, 1.0, "informer.store_rv", informer="pods", store_rv="", server_rv="106", lag=None, source="sim"),
            write(2, 2.0, duplicate=True, consistency=True),
        ]
    )
    text = render_queue(st, 2.5, 200, 30).plain
    assert "read-your-own-writes ON" in text and 'the stores read "": before client-go 1.36' in text
