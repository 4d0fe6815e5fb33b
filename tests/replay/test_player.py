"""The player on a FakeClock: nothing here sleeps."""

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.replay.player import Player, describe_mark, play_headless
from kubectl_informer.replay.recording import Recording

from .helpers import SteppingClock, story


def player(speed=1.0, start=0.0):
    rec = Recording("rec.ndjson", story())
    fed, resets = [], []
    clock = FakeClock(100.0)
    p = Player(rec, fed.extend, clock, speed=speed, start=start, reset=lambda: (resets.append(1), fed.clear()))
    return p, fed, clock, resets


def offsets(p, fed):
    return [round(ev.time - p.rec.t0, 3) for ev in fed]


def test_plays_in_recorded_time_at_its_speed():
    p, fed, clock, _ = player(speed=10)
    p.tick()
    assert offsets(p, fed) == [0, 0, 0, 0]  # header, informer.start, the list
    clock.step(0.1)  # one recorded second at 10x
    p.tick()
    assert offsets(p, fed)[-1] == 1.0 and len(fed) == 5
    clock.step(0.35)
    p.tick()
    assert offsets(p, fed)[-1] == 4.5 and round(p.offset(), 6) == 4.5
    clock.step(10)
    p.tick()
    assert len(fed) == len(p.rec.events) and p.finished and not p.playing and p.offset() == 10.0


def test_speed_zero_feeds_everything_at_once_and_speed_changes_keep_the_playhead():
    p, fed, clock, _ = player(speed=0)
    p.tick()
    assert len(fed) == len(p.rec.events)
    p, fed, clock, _ = player(speed=1)
    clock.step(2)
    p.set_speed(4)
    clock.step(0.5)  # 2 recorded seconds at 4x
    p.tick()
    assert round(p.offset(), 6) == 4.0 and offsets(p, fed)[-1] == 4.0


def test_pause_freezes_the_playhead_and_step_feeds_one_event():
    p, fed, clock, _ = player()
    clock.step(1.5)
    p.tick()
    p.toggle()
    assert not p.playing
    clock.step(100)
    assert p.tick() == 0 and round(p.offset(), 6) == 1.5
    ev = p.step()
    assert ev.kind == "store.update" and ev.key == "default/web-2" and fed[-1] is ev
    assert p.offset() == 2.0 and not p.playing
    p.toggle()
    clock.step(2)  # 2.0 -> 4.0: the 410 comes due
    p.tick()
    assert offsets(p, fed)[-1] == 4.0


def test_seek_to_a_time_forward_and_back():
    p, fed, clock, resets = player()
    p.seek_to(6.0)
    assert offsets(p, fed)[-1] == 6.0 and fed[-1].kind == "store.delete" and not resets
    p.seek_to(1.0)  # back: the UI starts over and is fed up to 1s
    assert resets == [1] and offsets(p, fed) == [0, 0, 0, 0, 1.0]
    p.seek_to(99)
    assert p.finished and p.offset() == 10.0
    p2, fed2, _, _ = player(start=4.0)  # --from
    assert offsets(p2, fed2)[-1] == 4.0


def test_next_and_previous_mark_stop_at_relists_410s_and_tombstones():
    p, fed, clock, resets = player()
    p.tick()
    seen = []
    while (ev := p.next_mark()) is not None:
        seen.append((describe_mark(ev), fed[-1] is ev, p.playing))
    assert seen == [
        ("watch ended 410 Gone", True, False),
        ("relist (expired)", True, False),
        ("tombstone default/web-2", True, False),
    ]
    assert p.marks_ahead() == 0
    ev = p.prev_mark()
    assert describe_mark(ev) == "relist (expired)" and fed[-1] is ev and resets == [1]
    assert p.prev_mark().kind == "watch.end" and p.prev_mark() is None
    assert round(p.offset(), 6) == 4.0 and p.marks_ahead() == 2  # the relist and the tombstone


def test_headless_play_waits_the_recorded_gaps_divided_by_speed():
    rec = Recording("rec.ndjson", story())
    out = []
    clock = SteppingClock()
    n = play_headless(rec.events, rec.t0, out.extend, speed=2, clock=clock)
    assert n == len(rec.events) == len(out)
    assert clock.sleeps == [0.5, 0.5, 1.0, 0.25, 0.75, 2.0]  # 1s, 2s, 4s, 4.5s, 6s, 10s at 2x
    clock = SteppingClock()
    out.clear()
    play_headless(rec.events, rec.t0, out.extend, speed=1, start=4.5, clock=clock)
    assert [ev.kind for ev in out] == ["relist", "store.delete", "store.update"] and clock.sleeps == [1.5, 4.0]
    clock = SteppingClock()
    play_headless(rec.events, rec.t0, out.extend, speed=0, clock=clock)
    assert clock.sleeps == []
