"""docs/questions.md's claims, checked against the output of the commands the
page quotes for them: a paragraph and a run that disagree fail here.

Each run is a command of the paragraph's section, found on the page
(``doc_commands.page_commands``), in its ``-o json`` / ``-o text`` form (a live
UI's headless twin) with only ``-o``, ``--duration`` and ``--max-events``
changed. The figures a paragraph states (a period, a burst's size, a saving)
are read from the paragraph (``_figure``): editing one without the other
fails here.

The CLI has no faster clock: the simulator's scenarios, the reflector's
back-off and the resync timer all run on the real one. So every run starts at
once, in one module-scoped fixture, and runs until its trace shows what its
claim needs (``Spec.until``, read as it is written), then gets SIGTERM, as
``--duration`` would end it: a fixed ``--duration`` counts the start-up too,
which on a loaded machine took 6 s of a 7 s run. The file costs its longest
run in wall time, and each run next to nothing in CPU (the demo clusters are
small)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .doc_commands import page_commands

PAGE = Path(__file__).resolve().parents[2] / "docs" / "questions.md"
TEXT = PAGE.read_text()
COMMANDS = page_commands(PAGE)
RUN_LIMIT = 90.0  # seconds for every run to show what it is run for, on a loaded machine
POLL = 0.1

pytestmark = pytest.mark.long_wait


# --- the page -------------------------------------------------------------------


def _section(anchor: str) -> tuple[str, int, int]:
    """The text under ``<a id="anchor">`` up to the next anchor, and its lines."""
    start = TEXT.index(f'<a id="{anchor}"></a>')
    end = TEXT.find('<a id="', start + 1)
    end = len(TEXT) if end < 0 else end
    return TEXT[start:end], TEXT.count("\n", 0, start) + 1, TEXT.count("\n", 0, end) + 1


def _figure(anchor: str, pattern: str) -> tuple[str, ...]:
    """What ``pattern`` captures in the section (its prose joined on one line)."""
    m = re.search(pattern, " ".join(_section(anchor)[0].split()))
    assert m, f"docs/questions.md#{anchor} no longer says /{pattern}/"
    return m.groups()


def _quoted(anchor: str) -> list[str]:
    _, first, last = _section(anchor)
    return [c.text for c in COMMANDS if first <= c.line < last and c.text.startswith("kubectl informer ")]


def _base(cmd: str) -> str:
    """The command without its pipe, redirection, ``&`` and the flags a
    headless twin changes (``-o``, ``--duration``, ``--max-events``)."""
    cmd = re.split(r"\s[|>]", cmd)[0].removesuffix("&")
    cmd = re.sub(r"\s(?:-o|--output|--duration|--max-events)[ =]\S+", "", cmd)
    return " ".join(cmd.split())


# --- what a run has shown so far --------------------------------------------------


@dataclass
class Seen:
    """A run's output read so far: trace events (``-o json``) or lines."""

    events: list[dict]
    lines: list[str]
    err: str


def _kinds(events: list[dict], *kinds: str) -> list[dict]:
    return [e for e in events if e["kind"] in kinds]


def _count(s: Seen, kind: str, **fields) -> int:
    return sum(e["kind"] == kind and all(e["fields"].get(k) == v for k, v in fields.items()) for e in s.events)


def _items(s: Seen) -> int:
    """Objects of the first list (0 until it is done)."""
    return next((e["fields"]["items"] for e in s.events if e["kind"] == "list.done"), 0)


def _bursts(events: list[dict]) -> list[tuple[str, list[dict]]]:
    """Each burst of watch MODIFIED events (one key's, back to back): its key
    and the events of that key from its first one to the next burst."""
    starts: list[tuple[str, int]] = []
    last: dict | None = None
    for i, e in enumerate(events):
        if e["kind"] == "watch.event" and e["fields"]["type"] == "MODIFIED":
            if last is None or e["key"] != last["key"] or e["time"] - last["time"] > 1.0:
                starts.append((e["key"], i))
            last = e
    ends = [i for _, i in starts[1:]] + [len(events)] if starts else []
    return [(key, [e for e in events[i:end] if e["key"] == key]) for (key, i), end in zip(starts, ends, strict=True)]


def _bursts_done(s: Seen, kind: str, size: int = 20) -> int:
    """Bursts whose ``size`` updates all reached ``kind`` events of their key."""
    return sum(sum(e["kind"] == kind for e in after) >= size for _, after in _bursts(s.events))


def _after(lines: list[str], marker: str) -> list[str]:
    return lines[lines.index(marker) + 1 :] if marker in lines else []


def _synced_twice(s: Seen) -> bool:
    return _items(s) > 0 and _count(s, "handler.update", listener="late-handler", is_sync=True) >= 2 * _items(s)


def _relisted_twice_and_delivered(s: Seen) -> bool:
    """Two relists, the second's objects handed to both handlers."""
    relists = [i for i, e in enumerate(s.events) if e["kind"] == "relist"]
    return (
        len(relists) >= 2 and _items(s) > 0 and len(_kinds(s.events[relists[1] :], "handler.update")) >= 2 * _items(s)
    )


def _tick_after_relist(s: Seen) -> bool:
    kinds = [e["kind"] for e in s.events]
    return "relist" in kinds and "resync.tick" in kinds[kinds.index("relist") :]


def _expired_twice_and_relisted(s: Seen) -> bool:
    seq = [e["kind"] for e in s.events if e["kind"] in ("watch.end", "list.start") and e["fields"].get("expired", True)]
    return seq.count("watch.end") >= 2 and seq[-1] == "list.start"


@dataclass(frozen=True)
class Spec:
    anchor: str  # the section quoting the command
    base: str  # the command, as _base reads it
    until: Callable[[Seen], bool] | None  # None: it ends by itself (--max-events)
    output: str = "json"
    max_events: int | None = None
    merge: bool = False  # stderr into stdout, to see the order of both

    def args(self) -> list[str]:
        quoted = _quoted(self.anchor)
        assert any(_base(c) == self.base for c in quoted), f"docs/questions.md#{self.anchor} no longer has {self.base}"
        args = [*self.base.split()[2:], "-o", self.output]
        return args + (["--max-events", str(self.max_events)] if self.max_events else [])


RESYNC = "kubectl informer watch pods --demo quiet --resync 3s"
LATE = "kubectl informer watch pods --demo quiet --resync 4s --late-handler-resync 3s"
DISCONNECT = "kubectl informer watch pods -A --demo disconnect"
STORM = "kubectl informer watch pods --demo relist-storm"
FLAKY = "kubectl informer watch pods --demo flaky"
QUEUE_BURST = "kubectl informer queue pods -A --demo burst --workers 1 --work-time 500ms"
BURST = "kubectl informer watch pods -A --demo burst"
HANDLERS = "kubectl informer watch pods --demo relist-storm --resync {p} --handlers 2 --handler-resync {p},0"
BACKING = "kubectl informer queue pods --demo -A --resync 2s --workers 1 --work-time 300ms"
FAILING = "kubectl informer queue pods --demo --fail-rate 0.5"
SLOW_LIMITER = f"{FAILING} --rate-limiter exponential:500ms,60s"
TOMBSTONE = "(tombstone: DeletedFinalStateUnknown)"

SPECS = {
    "resync": Spec("resync", RESYNC, lambda s: _count(s, "handler.update", is_sync=True) >= 2 * _items(s) > 0),
    "resync-text": Spec(
        "resync",
        RESYNC,
        lambda s: sum(x.startswith("Sync ") for x in s.lines) >= 2 * sum("[initial list]" in x for x in s.lines) > 0,
        "text",
    ),
    "late": Spec("resync-period", LATE, _synced_twice),
    "disconnect": Spec("tombstones", DISCONNECT, lambda s: _count(s, "handler.delete") > 0),
    "disconnect-text": Spec("tombstones", DISCONNECT, lambda s: any(TOMBSTONE in x for x in s.lines), "text"),
    "storm": Spec("relist", STORM, _expired_twice_and_relisted),
    "flaky": Spec("relist", FLAKY, lambda s: any(str(e["fields"].get("error")).startswith("500") for e in s.events)),
    "flaky-text": Spec("relist", FLAKY, lambda s: "retrying in" in s.err and "relisting (" in s.err, "text"),
    "queue-burst": Spec("workqueue-dedup", QUEUE_BURST, lambda s: _bursts_done(s, "queue.add") >= 1),
    "burst": Spec(
        "fifo-accumulates", BURST, lambda s: _bursts_done(s, "handler.update") >= 2 and _count(s, "fifo.coalesce") > 0
    ),
    "burst-1.35": Spec(
        "fifo-accumulates", f"{BURST} --client-go 1.35", lambda s: _bursts_done(s, "handler.update") >= 1
    ),
    "storm-2s": Spec("sync-vs-replaced", f"{STORM} --resync 2s", lambda s: _count(s, "resync.tick") >= 2),
    "handlers-2s": Spec("sync-vs-replaced", HANDLERS.format(p="2s"), _tick_after_relist),
    "handlers-4s": Spec("sync-vs-replaced", HANDLERS.format(p="4s"), _relisted_twice_and_delivered),
    "storm-text": Spec(
        "sync-vs-replaced",
        f"{STORM} --resync 2s",
        lambda s: sum(x.startswith("Sync ") for x in _after(s.lines, "relisting (expired)")) > 0,
        "text",
        merge=True,
    ),
    "backing": Spec("backing-up", BACKING, lambda s: _count(s, "queue.get") >= 12),
    "strip": Spec("big-cluster", "kubectl informer watch pods --demo --strip-managed-fields", None, max_events=40),
    "strip-all": Spec(
        "big-cluster", "kubectl informer watch pods --demo -A --strip-managed-fields", None, max_events=40
    ),
    "metadata-all": Spec("big-cluster", "kubectl informer watch pods --demo -A --metadata-only", None, max_events=40),
    "synced": Spec(
        "synced",
        "kubectl informer watch pods --demo",
        lambda s: _count(s, "informer.synced") > 0 < _count(s, "watch.start"),
    ),
    "default-limiter": Spec("retries", FAILING, lambda s: any(e["fields"].get("requeues", 0) >= 3 for e in s.events)),
    "slow-limiter": Spec("retries", SLOW_LIMITER, lambda s: any(e["fields"].get("requeues", 0) >= 3 for e in s.events)),
}


# --- the runs --------------------------------------------------------------------


class Run:
    """One process and what it has written so far."""

    def __init__(self, proc: subprocess.Popen, out: Path, err: Path, spec: Spec | None):
        self.proc, self.out_path, self.err_path, self.spec = proc, out, err, spec
        self.seen = Seen([], [], "")
        self._read = 0
        self.showed = spec is None or spec.until is None  # what it is run for

    def read(self) -> None:
        with self.out_path.open("rb") as f:
            f.seek(self._read)
            chunk = f.read()
        whole = chunk[: chunk.rfind(b"\n") + 1]
        self._read += len(whole)
        for line in whole.decode().splitlines():
            self.seen.lines.append(line)
            if self.spec is not None and self.spec.output == "json" and line.startswith("{"):
                self.seen.events.append(json.loads(line))
        self.seen.err = self.err_path.read_text()

    def check(self) -> None:
        """SIGTERM once it has shown what it is run for."""
        if self.proc.poll() is not None or self.showed:
            return
        self.read()
        if self.spec is not None and self.spec.until is not None and self.spec.until(self.seen):
            self.showed = True
            self.proc.send_signal(signal.SIGTERM)


class Runs:
    """Every run of SPECS and the metrics block, started together."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
        argvs = {name: [sys.executable, "-m", "kubectl_informer", *spec.args()] for name, spec in SPECS.items()}
        argvs["metrics"] = self._metrics_block()  # every command found on the page before any starts
        self.runs = {name: self._start(name, argv, SPECS.get(name)) for name, argv in argvs.items()}

    def _start(self, name: str, argv: list[str], spec: Spec | None) -> Run:
        out, err = self.tmp / f"{name}.out", self.tmp / f"{name}.err"
        with out.open("w") as o, err.open("w") as e:
            merge = spec is not None and spec.merge
            proc = subprocess.Popen(
                argv,
                stdout=o,
                stderr=subprocess.STDOUT if merge else e,
                env=self.env,
                cwd=self.tmp,
                start_new_session=True,  # the metrics block's background job goes with it
            )
        return Run(proc, out, err, spec)

    def _metrics_block(self) -> list[str]:
        """The page's block that exports our queue's metrics and attaches to
        them, as one bash script (its port swapped for a free one)."""
        from .test_docs_commands import Runner

        _, first, last = _section("backing-up")
        block = next(c.block for c in COMMANDS if first <= c.line < last and "--metrics-addr" in c.text)
        script = Runner(self.tmp, self.env).swap("\n".join(c.text for c in COMMANDS if c.block == block), {}, self.tmp)
        script = script.replace("kubectl informer ", f"{sys.executable} -m kubectl_informer ")
        return ["bash", "-e", "-c", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script]

    def wait(self) -> None:
        """Until each has shown what it is run for (or RUN_LIMIT); none is
        left running, whatever happens."""
        deadline = time.monotonic() + RUN_LIMIT
        try:
            while time.monotonic() < deadline and any(r.proc.poll() is None for r in self.runs.values()):
                for r in self.runs.values():
                    r.check()
                time.sleep(POLL)
        finally:
            for r in self.runs.values():
                if r.proc.poll() is None:
                    os.killpg(r.proc.pid, signal.SIGKILL)
                r.proc.wait()
        for r in self.runs.values():
            r.read()

    def seen(self, name: str) -> Seen:
        r = self.runs[name]
        assert r.showed, f"{name}: not shown within {RUN_LIMIT:g}s\n{r.seen.err[-1500:]}"
        ok = (0, 128 + signal.SIGTERM, -signal.SIGTERM) if r.spec and r.spec.until else (0,)
        assert r.proc.returncode in ok, (name, r.proc.returncode, r.seen.err[-1500:])
        return r.seen

    def events(self, name: str) -> list[dict]:
        return self.seen(name).events

    def out(self, name: str) -> list[str]:
        return self.seen(name).lines

    def err(self, name: str) -> str:
        return self.seen(name).err


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    r = Runs(tmp_path_factory.mktemp("questions"))
    r.wait()  # before any test: a failing one leaves nothing running
    return r


def _since_start(events: list[dict], e: dict) -> float:
    return e["time"] - events[0]["time"]


def _gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


# Seconds of slack on a timer's moment on busy cores: half of what tells the
# page's figures from their alternatives (a 4s period from the 3s asked).
TIMING = 0.5


# Commands of the page checked elsewhere than in SPECS, and where.
CHECKED_ELSEWHERE = {
    # `x h enter` on the live UI: tests/tui/test_experiments.py::test_add_a_handler_now_shows_the_resync_asked_and_got
    "kubectl informer watch pods --demo quiet --resync 4s": "resync-period",
    # the recording the disconnect run writes, replayed: _replay_seeks_to_each_mark
    "kubectl informer replay disconnect.ndjson": "tombstones",
    # the metrics block, run whole: Runs._metrics_block
    "kubectl informer queue events --demo -A --workers 1 --work-time 1s --metrics-addr 127.0.0.1:9101": "backing-up",
    "kubectl informer attach http://127.0.0.1:9101/metrics -o text --count 8": "backing-up",
}


def test_every_command_on_the_page_has_its_claim_checked():
    """A command added to the page (or changed) without a run here fails:
    its paragraph's claim would go unchecked."""
    run = {spec.base for spec in SPECS.values()} | {_base(c) for c in CHECKED_ELSEWHERE}
    unchecked = [
        c.where + ": " + c.text for c in COMMANDS if c.text.startswith("kubectl ") and _base(c.text) not in run
    ]
    assert not unchecked, "\n".join(unchecked)
    for cmd, anchor in CHECKED_ELSEWHERE.items():
        assert any(_base(c) == _base(cmd) for c in _quoted(anchor)), cmd


# --- Why did my handler get an update when nothing changed? ----------------------


def test_resync_a_quiet_cluster_gets_a_sync_of_every_object_every_period(runs):
    period = float(_figure("resync", r"resync every (\d+)s")[0])
    assert _figure("resync", r"the same objects every (\d+) seconds") == (f"{period:g}",)
    assert f"--resync {period:g}s" in RESYNC
    events = runs.events("resync")
    assert not _kinds(events, "watch.event")  # nothing changes on the server
    cached = {e["key"] for e in _kinds(events, "store.add")}
    ticks = [e["time"] for e in _kinds(events, "resync.tick")]
    assert len(ticks) >= 2 and all(abs(g - period) < TIMING for g in _gaps(ticks))
    synced_per_tick: list[set] = []
    for e in events:
        if e["kind"] == "resync.tick":
            synced_per_tick.append(set())
        elif e["kind"] == "fifo.queue" and e["fields"]["type"] == "Sync":
            synced_per_tick[-1].add(e["key"])
    assert synced_per_tick == [cached] * len(ticks)  # every object, each tick
    updates = _kinds(events, "store.update")
    assert updates and all(u["fields"]["resource_version"] == u["fields"]["old_resource_version"] for u in updates)
    assert all(h["fields"]["is_sync"] for h in _kinds(events, "handler.update"))
    # as text: each Sync "(no change)", at the resourceVersion the list gave
    listed: dict[str, str] = {}
    syncs: Counter[str] = Counter()
    for line in runs.out("resync-text"):
        delta, key, rv = line.split()[:3]
        if delta == "Replaced":
            listed[key] = rv
        elif delta == "Sync":
            assert line.endswith("(no change)") and listed[key] == rv, line
            syncs[key] += 1
    assert set(syncs) == set(listed) and len(set(syncs.values())) == 1


# --- Why does a 3s resync fire every 4s? -----------------------------------------


def test_a_late_handler_asking_less_than_the_check_period_is_resynced_every_check_period(runs):
    asked, got = (float(x) for x in _figure("resync-period", r"Why does a (\d+)s resync fire every (\d+)s\?"))
    assert f"--resync {got:g}s --late-handler-resync {asked:g}s" in LATE
    events = runs.events("late")
    late = next(e["fields"] for e in _kinds(events, "handler.register") if e["fields"]["listener"] == "late-handler")
    assert (late["requested"], late["effective"]) == (asked, got) and "already started" in late["reason"]
    times = [
        e["time"]
        for e in _kinds(events, "handler.update")
        if e["fields"]["listener"] == "late-handler" and e["fields"]["is_sync"]
    ]
    # each resync hands the handler every cached pod: on busy cores they may take longer than
    # a rounding step, so a resync is the run of syncs that starts a second after the last one
    syncs = [t for i, t in enumerate(times) if i == 0 or t - times[i - 1] > 1.0]
    assert len(syncs) >= 2 and all(abs(g - got) < TIMING for g in _gaps(syncs))


def test_a_listener_is_resynced_on_the_first_tick_at_or_after_it_is_due():
    """The page's example of the second rule (shouldResync, then
    determineNextResync from that tick), on a FakeClock."""
    from kubectl_informer.cache.shared_processor import ProcessorListener, ResourceEventHandlerFuncs, SharedProcessor
    from kubectl_informer.clock.testing import FakeClock
    from kubectl_informer.core.trace import Tracer

    period, tick, every = (
        int(x) for x in _figure("resync-period", r"a (\d+)s period on (\d+)s ticks is resynced every (\d+)s")
    )
    clock = FakeClock()
    processor = SharedProcessor(clock, Tracer(clock))
    processor.check_period = tick
    processor.add_listener(ProcessorListener("h", ResourceEventHandlerFuncs(), period, period, 0.0, lambda: True))
    due = []
    for _ in range(3 * every // tick):
        clock.step(tick)
        if processor.should_resync():
            due.append(clock.now())
    assert due == [every, 2 * every, 3 * every]


# --- Where did my delete go? ------------------------------------------------------


def test_a_delete_missed_while_the_watch_was_down_comes_as_a_tombstone_after_the_relist(runs, tmp_path):
    events = runs.events("disconnect")
    kinds = [e["kind"] for e in events]
    gone = next(i for i, e in enumerate(events) if e["kind"] == "watch.end" and e["fields"].get("expired"))
    relist = kinds.index("relist", gone)
    assert events[relist]["fields"]["reason"] == "expired"
    assert "watch.event" not in kinds[gone:relist]  # the watch is down
    tombstones = [i for i, e in enumerate(events) if e["kind"] == "store.delete" and e["fields"].get("tombstone")]
    assert tombstones and all(i > relist for i in tombstones)
    replaced = [i for i, e in enumerate(events[relist:], relist) if e.get("fields", {}).get("delta") == "Replaced"]
    assert replaced and max(replaced) < min(tombstones)  # after the Replaced rows
    initial = {e["key"] for e in events[:gone] if e["kind"] == "store.add"}
    assert {events[i]["key"] for i in tombstones} <= initial  # known before, gone from the relist
    listed_again = {e["key"] for e in events[relist:] if e["kind"] in ("store.add", "store.update")}
    seen = {e["key"] for e in events if e["kind"].startswith(("store.", "handler.", "fifo.")) and e["key"]}
    assert seen <= initial | listed_again  # created and deleted in the gap: never seen
    handled = {e["key"] for e in _kinds(events, "handler.delete")}
    assert handled == {events[i]["key"] for i in tombstones}
    # as text, the watch's end and the relist on stderr
    err, out = runs.err("disconnect-text"), runs.out("disconnect-text")
    assert "watch ended: 410" in err and err.index("watch ended: 410") < err.index("relisting (expired)")
    tomb = [
        i
        for i, line in enumerate(out)
        if line.startswith("Deleted ") and "(tombstone: DeletedFinalStateUnknown)" in line
    ]
    assert tomb and any(line.startswith("Replaced ") for line in out[: tomb[0]])
    _replay_seeks_to_each_mark(runs.tmp / "disconnect.out", events, tmp_path)


def _replay_seeks_to_each_mark(recording: Path, events: list[dict], tmp_path: Path) -> None:
    """The replay of the saved run: ``]`` (Player.next_mark) stops at the 410,
    the relist and the tombstone in turn, paused; ``-o text`` plays it headless."""
    from kubectl_informer.clock.testing import FakeClock
    from kubectl_informer.replay.player import Player
    from kubectl_informer.replay.recording import read_recording

    quoted = _quoted("tombstones")
    assert f"{DISCONNECT} -o json --duration 6s > disconnect.ndjson" in quoted
    assert "kubectl informer replay disconnect.ndjson" in quoted
    player = Player(read_recording(str(recording)), lambda evs: None, FakeClock())
    marks = []
    while (ev := player.next_mark()) is not None:
        assert not player.playing
        marks.append("410" if ev.kind == "watch.end" else ev.kind)
    assert marks[:3] == ["410", "relist", "store.delete"]
    (tmp_path / "disconnect.ndjson").write_bytes(recording.read_bytes())
    p = subprocess.run(
        [sys.executable, "-m", "kubectl_informer", "replay", "disconnect.ndjson", "-o", "text"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=RUN_LIMIT,
    )
    assert p.returncode == 0, p.stderr
    key = next(e["key"] for e in events if e["kind"] == "store.delete" and e["fields"].get("tombstone"))
    assert re.search(rf"^Deleted {re.escape(key)} .*\(tombstone: DeletedFinalStateUnknown\)$", p.stdout, re.M)


# --- Why did the informer relist? -------------------------------------------------


def test_relist_storm_a_clean_end_rewatches_and_a_410_relists_after_the_back_off(runs):
    base, cap = (float(x) for x in _figure("relist", r"\(([\d.]+)s doubling to (\d+)s, up to 100% jitter"))
    events = runs.events("storm")
    seq = _kinds(events, "watch.start", "watch.end", "relist", "list.start", "reflector.backoff")
    closed = next(i for i, e in enumerate(seq) if e["kind"] == "watch.end" and e["fields"].get("reason") == "closed")
    reopened = seq[closed + 1]  # opened again from the same resourceVersion: no relist
    assert reopened["kind"] == "watch.start"
    assert reopened["fields"]["resource_version"] == seq[closed]["fields"]["resource_version"]
    expired = [i for i, e in enumerate(seq) if e["kind"] == "watch.end" and e["fields"].get("expired")]
    assert expired
    for i in expired:
        backoff, relist, listed = seq[i + 1 : i + 4]
        assert (backoff["kind"], relist["kind"], listed["kind"]) == ("reflector.backoff", "relist", "list.start")
        assert relist["fields"]["reason"] == "expired"
        # at the last resourceVersion it saw ("not older than"), not ""
        assert listed["fields"]["resource_version"] == seq[i]["fields"]["resource_version"] != ""
    first = seq[expired[0] + 1]["fields"]["delay"]
    assert base <= first <= 2 * base  # "a second or so"
    _backoff_doubles_to_the_cap(base, cap)
    # every cut of the storm ends a watch in 410, `every` seconds apart
    every = float(_figure("sync-vs-replaced", r"relist-storm.? cuts the watches every (\d+)s")[0])
    times = [seq[i]["time"] for i in expired]
    assert len(times) >= 2 and all(abs(g - every) < TIMING for g in _gaps(times))


def _backoff_doubles_to_the_cap(base: float, cap: float) -> None:
    """The reflector's back-off manager, on a FakeClock: the base doubled per
    failure up to the cap, each with up to 100% jitter added."""
    from kubectl_informer.cache.reflector import BackoffManager
    from kubectl_informer.clock.testing import FakeClock

    manager = BackoffManager(FakeClock())
    delays = [manager.next() for _ in range(10)]
    steps = [min(base * 2**n, cap) for n in range(10)]
    assert all(s <= d <= 2 * s for d, s in zip(delays, steps, strict=True)) and steps[-1] == cap


def test_flaky_server_each_fault_in_turn_and_the_text_says_retrying_and_relisting(runs):
    events = runs.events("flaky")
    faults = []
    for e in events:
        f = e["fields"]
        if e["kind"] == "watch.end" and f.get("reason") == "closed":
            faults.append("dropped")
        elif e["kind"] == "request.retry":
            faults.append(str(f["status"]))
        elif e["kind"] == "watch.end" and f.get("expired"):
            faults.append("410")
        elif e["kind"] == "reflector.backoff" and f.get("error"):
            faults.append(f["error"].split()[0])
    wanted = _figure("relist", r"\(a dropped watch, a (\d+), then a (\d+) whose relist gets a (\d+), in turn\)")
    firsts = [faults.index(w) for w in ("dropped", *wanted)]  # each in turn
    assert firsts == sorted(firsts), faults
    # a 429 backs off and watches again without a relist
    kinds = [(e["kind"], e["fields"].get("status")) for e in events]
    retry = kinds.index(("request.retry", 429))
    assert next(k for k, _ in kinds[retry + 1 :] if k in ("watch.start", "relist", "list.start")) == "watch.start"
    # each back-off of the reflector: the base doubled per failure, jittered up to 100%
    base = float(_figure("relist", r"\(([\d.]+)s doubling to \d+s, up to 100% jitter")[0])
    delays = [e["fields"]["delay"] for e in _kinds(events, "reflector.backoff")]
    assert delays and all(base * 2**n <= d <= 2 * base * 2**n for n, d in enumerate(delays))
    err = runs.err("flaky-text")
    assert re.search(r"^retrying in \S+: ", err, re.M) and re.search(r"^relisting \(\w+\)$", err, re.M)


# --- Why did 1000 adds run my worker once? ----------------------------------------


def test_workqueue_a_burst_of_updates_is_one_key_once_in_the_queue(runs):
    size = int(_figure("workqueue-dedup", r"(\d+) back-to-back updates to one pod every \d+ seconds")[0])
    assert _figure("workqueue-dedup", r"its (\d+) updates became (\d+) queue adds") == (str(size), str(size))
    events = runs.events("queue-burst")
    bursts = _bursts(events)
    assert bursts
    for _, after in bursts:
        assert sum(e["kind"] == "watch.event" for e in after) == size
        adds = [e["fields"]["outcome"] for e in after if e["kind"] == "queue.add"]
        assert len(adds) == size  # the handler got every update, the queue every add
        assert sum(e["kind"] == "handler.update" for e in after) == size
        # the first makes the key dirty (unless it still waited from before); the rest find it so
        assert adds[0] in ("queued", "dirty_while_processing", "already_dirty") and set(adds[1:]) == {"already_dirty"}
        assert sum(e["kind"] == "queue.get" for e in after) <= 1  # then one run
    assert all(
        e["fields"]["outcome"] in ("queued", "already_dirty", "dirty_while_processing")
        for e in _kinds(events, "queue.add")
    )
    pattern = _figure("workqueue-dedup", rf"{re.escape(QUEUE_BURST)} -o json --duration \w+ \| grep -c (\w+)")[0]
    assert sum(pattern in line for line in runs.out("queue-burst")) >= (size - 1) * len(bursts)


# --- Why do several deltas pop together for one key? -----------------------------


def test_fifo_deltafifo_appends_a_burst_to_one_slot_and_realfifo_pops_each(runs):
    size, every = (
        int(x) for x in _figure("workqueue-dedup", r"(\d+) back-to-back updates to one pod every (\d+) seconds")
    )
    assert _figure("fifo-accumulates", r"a burst of (\d+) updates to one pod")[0] == str(size)
    events = runs.events("burst")
    assert next(e for e in events if e["kind"] == "informer.start")["fields"]["fifo"] == "DeltaFIFO"
    bursts = _bursts(events)
    starts = [after[0]["time"] for _, after in bursts]
    assert len(bursts) >= 2 and all(abs(g - every) < TIMING for g in _gaps(starts))
    together = 0  # deltas popped with another, over every burst
    for _, after in bursts:
        slot = 0
        for e in after:
            if e["kind"] == "fifo.pop":
                slot = 0
            elif e["kind"] in ("fifo.queue", "fifo.coalesce"):
                assert e["fields"]["pending"] == slot + 1  # appended: the slot grows by one
                slot += 1
        popped = [e["fields"]["types"] for e in after if e["kind"] == "fifo.pop"]
        assert {d for t in popped for d in t} == {"Updated"} and sum(map(len, popped)) == size
        together += sum(len(t) for t in popped if len(t) > 1)
        # each delta applied and handed to the handler, in order
        assert (
            sum(e["kind"] == "store.update" for e in after) == sum(e["kind"] == "handler.update" for e in after) == size
        )
    # "usually": the pop loop can take each delta as it comes; the run goes on until a burst outran it
    assert together and _kinds(events, "fifo.coalesce")
    real = runs.events("burst-1.35")
    start = next(e["fields"] for e in real if e["kind"] == "informer.start")
    assert (start["fifo"], start["watch_list"]) == ("RealFIFO", True)  # and the initial list streamed
    assert not _kinds(real, "fifo.coalesce")
    for _, after in _bursts(real):
        popped = [e["fields"]["types"] for e in after if e["kind"] == "fifo.pop"]
        assert popped == [["Updated"]] * size  # every delta its own entry, popped alone


# --- Sync vs Replaced: who gets them? ---------------------------------------------


def _syncs_around_first_check(events: list[dict]) -> tuple[Counter, Counter]:
    """Sync notifications per handler before the first resync check, and after it."""
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    side = before
    for e in events:
        if e["kind"] == "resync.tick":
            side = after
        elif e["kind"] == "handler.update" and e["fields"].get("is_sync"):
            side[e["fields"]["listener"]] += 1
    return before, after


def test_sync_vs_replaced_who_gets_them(runs):
    """Until the first resync check every handler is marked syncing (addListener)
    and gets the unchanged Replaced of a relist; after it, only the one whose
    resync is due. With 2s the check comes before relist-storm's first relist
    (when the informer listed within 0.5s of the demo's start, as the page
    says): the handler without a resync gets no sync at all; with 4s no check
    runs (every relist starts the timer again), and both handlers get them."""
    short, long = (runs.events(n) for n in ("handlers-2s", "handlers-4s"))
    for events in (short, long):
        assert _kinds(events, "relist")
        before, after = _syncs_around_first_check(events)
        assert before["handler-1"] == before["handler-2"]  # both marked syncing when added
        assert after["handler-2"] == 0  # unmarked by the first check
    before, after = _syncs_around_first_check(short)
    assert after["handler-1"] > 0
    kinds = [e["kind"] for e in short]
    cut = float(_figure("sync-vs-replaced", r"first cuts the watches, ([\d.]+)s after the demo started")[0])
    demo_started = short[kinds.index("watch.end")]["time"] - cut  # the first cut, on the demo's schedule
    if short[kinds.index("list.done")]["time"] - demo_started < cut - 2:  # the first check came first
        assert kinds.index("resync.tick") < kinds.index("relist") and sum(before.values()) == 0
    before, after = _syncs_around_first_check(long)
    assert not _kinds(long, "resync.tick") and before["handler-2"] > 0
    for events in (short, long, runs.events("storm-2s")):
        _only_equal_resource_versions_are_syncs(events)


def _only_equal_resource_versions_are_syncs(events: list[dict]) -> None:
    """An update whose old and new resourceVersion are equal is a sync
    notification; one whose resourceVersion changed goes to every handler."""
    same: dict[str, bool] = {}
    handlers = {e["fields"]["listener"] for e in _kinds(events, "handler.register")}
    changed = changes_handed = 0
    for e in events:
        f = e["fields"]
        if e["kind"] == "store.update":
            same[e["key"]] = f["resource_version"] == f["old_resource_version"]
            changed += not same[e["key"]]
        elif e["kind"] == "handler.update":
            assert f["is_sync"] == same[e["key"]], e
            changes_handed += not f["is_sync"]
    assert changes_handed == changed * len(handlers)


def test_sync_vs_replaced_rows_alternate_and_text_prints_both(runs):
    events = runs.events("storm-2s")
    batches: list[str] = []
    for e in events:
        if e["kind"] == "fifo.queue" and e["fields"]["type"] in ("Sync", "Replaced"):
            kind = e["fields"]["type"]
            if not batches or batches[-1] != kind:
                batches.append(kind)
    # the initial list's Replaced, then a Sync tick and a relist's Replaced in turn
    assert batches[:4] == ["Replaced", "Sync", "Replaced", "Sync"], batches
    out = runs.out("storm-text")
    relisting = out.index("relisting (expired)")
    rows = [line.split()[0] for line in out if not line.startswith(("watch ended", "relisting"))]
    assert {"Sync", "Replaced"} <= set(rows)
    after = [line for line in out[relisting + 1 :] if line.startswith(("Replaced", "Sync"))]
    assert after[0].startswith("Replaced")  # the relist said first, then its rows
    assert any(line.endswith("(no change)") for line in after)


# --- Is my queue backing up? ------------------------------------------------------


def test_backing_up_latency_grows_while_depth_stays_within_the_keys(runs):
    events = runs.events("backing")
    keys: set[str] = set()
    for e in _kinds(events, "queue.add"):
        keys.add(e["key"])
        assert e["fields"]["depth"] <= len(keys)  # a key is in the queue once
    waited = [e["fields"]["waited"] for e in _kinds(events, "queue.get")]
    assert waited[-1] > waited[0] + 2  # queue latency grows
    span = events[-1]["time"] - events[0]["time"]
    # client-go's adds (workqueue_adds_total): a key made dirty, not one already so
    adds = sum(e["fields"]["outcome"] != "already_dirty" for e in _kinds(events, "queue.add"))
    assert adds / span > len(waited) / span  # added faster than taken off


def test_backing_up_attach_says_so_in_a_sentence(runs):
    sentence = re.compile(
        r"! controller is backing up: depth rose from (\d+) to (\d+) in \d+s because adds \(([\d.]+)/s\) "
        r"outpace what its workers take off the queue \(([\d.]+)/s\)"
    )
    section = _section("backing-up")[0]
    example = sentence.search(section)
    assert example and re.search(
        r"^queue controller: depth \d+ · adds [\d.]+/s \(\d+\) · drain [\d.]+/s", section, re.M
    )
    work = float(_figure("backing-up", r"--work-time (\d+)s --metrics-addr")[0])
    assert float(example.group(4)) == 1 / work
    out = "\n".join(runs.out("metrics"))
    said = sentence.findall(out)
    assert said, out
    for low, high, adds, drain in said:
        assert int(high) > int(low) and float(adds) > float(drain) and abs(float(drain) - 1 / work) < 0.15
    # new Events are new keys: the backlog keeps growing over the whole run, not held at a set of keys
    depths = [int(d) for d in re.findall(r"^queue controller: depth (\d+) ", out, re.M)]
    assert len(depths) == 8 and depths[-1] > depths[0], depths
    assert re.search(r"^informer v1 events ", out, re.M), out


# --- Why is my informer slow to sync on a big cluster? ---------------------------


def test_big_cluster_transforms_shrink_what_is_cached(runs):
    saved = int(
        _figure("big-cluster", r"stripping `managedFields` alone saves about (\d+)% of each of the demo's pods")[0]
    )
    lines = [line for line in runs.out("strip") if '"transform"' in line]
    assert lines
    for line in lines:
        f = json.loads(line)["fields"]
        assert f["applied"] == ["strip-managed-fields"] and f["bytes"] < f["bytes_before"]
        assert abs(100 * (1 - f["bytes"] / f["bytes_before"]) - saved) <= 5
    stripped, meta = runs.events("strip-all"), runs.events("metadata-all")
    held = [e["fields"]["bytes"] for e in _kinds(stripped, "transform")]
    meta_held = [e["fields"]["bytes"] for e in _kinds(meta, "object.size")]
    assert held and meta_held and max(meta_held) < min(held)  # metadata only: less again
    page = [e["fields"]["bytes"] for e in _kinds(stripped, "list.page")]
    meta_page = [e["fields"]["bytes"] for e in _kinds(meta, "list.page")]
    assert meta_page[0] < page[0] / 2  # and less to fetch


# --- When is the cache "synced"? --------------------------------------------------


def test_synced_is_one_event_once_the_initial_list_is_applied(runs):
    events = runs.events("synced")
    synced = [i for i, line in enumerate(runs.out("synced")) if '"informer.synced"' in line]
    assert len(synced) == 1
    f = events[synced[0]]["fields"]
    listed = next(e["fields"]["items"] for e in events if e["kind"] == "list.done")
    initial = [i for i, e in enumerate(events) if e["kind"] == "fifo.pop" and e["fields"]["is_in_initial_list"]]
    assert f["items"] == listed == len(initial) and max(initial) < synced[0]
    assert 0 < f["duration"] < _since_start(events, events[synced[0]]) + 0.5
    # the first list: Replaced deltas, handed over as adds in the initial list
    adds = _kinds(events[: synced[0]], "store.add")
    assert len(adds) == listed and all(
        a["fields"]["delta"] == "Replaced" and a["fields"]["is_in_initial_list"] for a in adds
    )


# --- Why are my failed items retried slower and slower? --------------------------


def _delays_by_failures(events: list[dict]) -> dict[int, set[float]]:
    delays: dict[int, set[float]] = {}
    for e in _kinds(events, "queue.rate_limited"):
        delays.setdefault(e["fields"]["requeues"], set()).add(e["fields"]["delay"])
    return delays


def test_retries_the_default_limiter_waits_5ms_and_the_slower_one_is_seen_waiting(runs):
    """The default limiter's first delay is 5ms per key, doubling per failure
    of that key; the page's second command waits 500ms, 1s, 2s… and the
    Queue pane's waiting list has them."""
    from kubectl_informer.run.experiments.catalog import CATALOG

    base, second, third = (float(x) / 1000 for x in _figure("retries", r"per item (\d+)ms, (\d+)ms, (\d+)ms…"))
    default = runs.events("default-limiter")
    # the token bucket (10 qps, burst 100) is the larger only past its burst
    assert len(_kinds(default, "queue.rate_limited")) < 100
    delays = _delays_by_failures(default)
    assert delays.get(1) == {base} and delays.get(2) == {second} and delays.get(3) == {third}
    assert all(d == {base * 2 ** (n - 1)} for n, d in delays.items())
    delays = _delays_by_failures(runs.events("slow-limiter"))
    first, second, third = (
        float(x)
        for x in _figure("retries", r"(\d+)ms after a first failure, (\d+)s after a second, (\d+)s after a third")
    )
    assert delays.get(1) == {first / 1000}  # a first failure: the base
    assert all(d == {first / 1000 * 2 ** (n - 1)} for n, d in delays.items())
    assert (second, third) == (2 * first / 1000, 4 * first / 1000)
    fail_next = next(x for x in CATALOG if x.name == "fail-next")
    assert "default 5ms" in fail_next.look and "exponential:500ms,60s" in fail_next.look
