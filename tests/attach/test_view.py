"""What the attach screen shows, without Textual: order, filter, the rows in view."""

from kubectl_informer.attach.model import QueueFigures
from kubectl_informer.panes.attach_view import bucket_range, by_activity, estimate, shown_queues, window
from kubectl_informer.panes.filters import parse_filter


def q(name, depth=0.0, adds=0.0, retries=0.0):
    return QueueFigures(name, depth=depth, adds_per_s=adds, retries_per_s=retries)


def test_busiest_first_depth_then_adds_then_retries_then_name():
    queues = [
        q("a"),
        q("b", retries=1),
        q("c", adds=5),
        q("d", depth=2),
        q("e", depth=2, adds=1),
        q("f", adds=5, retries=2),
    ]
    assert [x.name for x in by_activity(queues)] == ["e", "d", "f", "c", "b", "a"]


def test_the_filter_is_the_panes_on_the_queue_name():
    queues = [q("deployment", depth=1), q("daemonset"), q("replicaset", depth=3)]
    assert [x.name for x in shown_queues(queues, parse_filter("set$"))] == ["replicaset", "daemonset"]
    assert [x.name for x in shown_queues(queues, parse_filter("!set$"))] == ["deployment"]
    assert len(shown_queues(queues, parse_filter(""))) == 3


def test_window_keeps_the_cursor_in_view_and_counts_what_is_not():
    # 50 rows in 10 lines: 9 rows and a "▼ 41 more" line.
    first = window(50, 0, 10, 0)
    assert (first.top, first.rows, first.above, first.below) == (0, 9, 0, 41)
    w = window(50, 30, 10, 0)
    assert w.top <= 30 < w.top + w.rows and w.above == w.top and w.above + w.rows + w.below == 50
    assert w.rows == 8  # both hint lines take a row
    last = window(50, 49, 10, w.top)
    assert last.below == 0 and last.rows == 9 and last.top + last.rows == 50
    assert window(5, 3, 10, 0) == window(5, 0, 10, 0) and window(5, 3, 10, 0).rows == 5


def test_estimates_are_marked_and_buckets_read_as_durations():
    assert estimate(0.55) == "≈550ms" and estimate(None) == "-"
    assert bucket_range((0.1, 1.0)) == "100ms–1s" and bucket_range((1000.0, float("inf"))) == "above 16m40s"
