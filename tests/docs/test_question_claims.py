"""docs/questions.md's claims, checked against the output of the commands the
page quotes for them: a paragraph and a run that disagree fail here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "questions.md"

pytestmark = pytest.mark.long_wait


def _quoted(prefix: str) -> list[str]:
    """The page's commands that start with ``prefix``, as written."""
    return [c for c in re.findall(r"^kubectl informer .+$", PAGE.read_text(), re.M) if c.startswith(prefix)]


def _syncs_around_first_check(events: list[dict]) -> tuple[Counter, Counter]:
    """Sync notifications per handler before the first resync check, and after it."""
    before, after = Counter(), Counter()
    side = before
    for e in events:
        if e["kind"] == "resync.tick":
            side = after
        elif e["kind"] == "handler.update" and e["fields"].get("is_sync"):
            side[e["fields"]["listener"]] += 1
    return before, after


def test_sync_vs_replaced_who_gets_them():
    """Until the first resync check every handler is marked syncing (addListener)
    and gets the unchanged Replaced of a relist; after it, only the one whose
    resync is due. With 2s the check comes before relist-storm's first relist:
    the handler without a resync gets no sync at all; with 3s the relists come
    first, and both handlers get them."""
    cmd = "kubectl informer watch pods --demo relist-storm --resync"
    two, three = (next(c for c in _quoted(f"{cmd} {p} --handlers 2")) for p in ("2s", "3s"))
    assert "-o json" in three
    two = two + " -o json --duration 10s"
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "kubectl_informer", *c.split()[2:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for c in (two, three)
    ]
    outs = [[json.loads(line) for line in p.communicate(timeout=60)[0].splitlines()] for p in runs]
    assert all(p.returncode == 0 for p in runs)
    for events in outs:
        assert any(e["kind"] == "relist" for e in events)
        before, after = _syncs_around_first_check(events)
        assert before["handler-1"] == before["handler-2"]  # both marked syncing when added
        assert after["handler-2"] == 0  # unmarked by the first check
    with_two, with_three = outs
    before, after = _syncs_around_first_check(with_two)
    assert sum(before.values()) == 0 and after["handler-1"] > 0
    before, _ = _syncs_around_first_check(with_three)
    assert before["handler-2"] > 0


def test_retries_the_default_limiter_waits_5ms_and_the_slower_one_is_seen_waiting():
    """The default limiter's first delay is 5ms per key; the page's second
    command waits 500ms, 1s, 2s… and the Queue pane's waiting list has them."""
    from kubectl_informer.run.experiments.catalog import CATALOG

    plain, slow = _quoted("kubectl informer queue pods --demo --fail-rate 0.5")[:2]
    assert "--rate-limiter exponential:500ms,60s" in slow and "--rate-limiter" not in plain
    p = subprocess.run(
        [sys.executable, "-m", "kubectl_informer", *slow.split()[2:], "-o", "json", "--duration", "4s"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    delays = {}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        if e["kind"] == "queue.rate_limited":
            delays.setdefault(e["fields"]["requeues"], set()).add(e["fields"]["delay"])
    assert delays.get(1) == {0.5}  # a first failure: the base
    assert all(d == {0.5 * 2 ** (n - 1)} for n, d in delays.items())
    fail_next = next(x for x in CATALOG if x.name == "fail-next")
    assert "default 5ms" in fail_next.look and "exponential:500ms,60s" in fail_next.look
