import pytest

from kubectl_informer.panes.ring import KeyedHistory, RateMeter


def test_keyed_history_keeps_per_key_ring_and_evicts_least_recent_key():
    h = KeyedHistory(max_keys=2, per_key=3)
    for i in range(5):
        h.add("a", i)
    h.add("b", "x")
    assert h.get("a") == [2, 3, 4]  # ring of 3, oldest dropped
    h.add("a", 5)  # touching a makes b the oldest
    h.add("c", "y")  # evicts b, not a
    assert "b" not in h and "a" in h and "c" in h
    assert h.evicted == 1
    assert list(h.keys_newest_first()) == ["c", "a"]
    assert h.get("b") == []
    assert h.total_items() == 4


def test_keyed_history_rejects_zero_sizes():
    with pytest.raises(ValueError):
        KeyedHistory(max_keys=0)


def test_rate_meter_averages_complete_seconds_only():
    r = RateMeter(window=2)
    for t in (10.1, 10.5, 11.2, 11.3, 11.4, 12.0):
        r.add(t)
    # Seconds 10 and 11 are complete at now=12.5: (2 + 3) / 2.
    assert r.rate(12.5) == 2.5
    # Long after, nothing in the window.
    assert r.rate(100.0) == 0.0


def test_keyed_history_total_bound_evicts_dead_keys_first():
    h = KeyedHistory(max_keys=100, per_key=4, max_items=10)
    for k in "abc":
        for i in range(3):
            h.add(k, i)
    h.mark_dead("b")
    h.add("a", 3)  # a newest; b dead; c live but older than a
    assert h.items == h.total_items() == 10
    h.add("d", 0)  # 11 > 10: the dead key goes, not the quiet live one
    assert "b" not in h and "c" in h and h.evicted == 1
    assert h.items == h.total_items() == 8 and h.dead_keys == 0
    for i in range(3):
        h.add("e", i)  # 11: now the key quiet the longest (c)
    assert "c" not in h and list(h.keys_newest_first()) == ["e", "d", "a"]
    assert h.items == h.total_items() <= h.max_items


def test_keyed_history_revived_key_is_live_again_and_one_key_never_exceeds_the_total():
    h = KeyedHistory(max_keys=10, per_key=8, max_items=5)
    h.add("a", 0)
    h.mark_dead("a")
    h.mark_live("a")  # created again under the same name
    h.add("b", 0)
    h.mark_dead("b")
    for i in range(4):
        h.add("a", i + 1)  # 6 > 5: dead b goes first, a keeps all of its 5
    assert "b" not in h and h.get("a") == [0, 1, 2, 3, 4]
    for i in range(5, 8):
        h.add("a", i)  # one key past the total: its own oldest go
    assert h.get("a") == [3, 4, 5, 6, 7] and h.items == 5
