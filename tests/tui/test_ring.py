import pytest

from kubectl_informer.tui.ring import KeyedHistory, RateMeter


def test_keyed_history_keeps_per_key_ring_and_evicts_least_recent_key():
    h = KeyedHistory(max_keys=2, per_key=3)
    for i in range(5):
        h.add("a", i)
    h.add("b", "x")
    assert h.get("a") == [2, 3, 4]  # ring of 3, oldest dropped
    h.add("a", 5)                   # touching a makes b the oldest
    h.add("c", "y")                 # evicts b, not a
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
