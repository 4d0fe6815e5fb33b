"""What each experiment is called, its key in the UI's menu, what it needs,
and where to look once it ran. Plain data: the UI and the docs read it."""

from __future__ import annotations

from dataclasses import dataclass

# What an experiment needs besides a running informer.
NEEDS_QUEUE = "queue"  # the simulated controller of `kubectl informer queue`
NEEDS_SIM = "sim"  # the simulated cluster of --demo (the server acts on itself)

COUNT = "count"  # prompts for a whole number
DURATION = "duration"  # prompts for a Go duration


@dataclass(frozen=True)
class Experiment:
    """An experiment of the UI's menu (key x)."""

    name: str  # as in the trace's `experiment` events (toggles: the pause name)
    key: str  # its key in the experiments menu
    title: str
    look: str  # what the panes show once it ran
    needs: str = ""
    prompt: str = ""  # COUNT or DURATION: asks for a value first
    default: str = ""  # the value proposed
    toggle: str = ""  # the name it takes when it undoes itself (resume)


CATALOG: tuple[Experiment, ...] = (
    Experiment("close-watch", "w", "close the watch now", "RV: the watch ends and reopens from the last RV, no list"),
    Experiment(
        "forget-rv",
        "r",
        'forget the last RV: relist at ""',
        'RV: relist (forgotten), then a list at rv "" (a consistent read)',
    ),
    Experiment(
        "pause-fifo",
        "f",
        "pause / resume the FIFO consumer",
        "FIFO: a backlog builds (DeltaFIFO one slot per key, RealFIFO one per delta), then drains",
        toggle="resume-fifo",
    ),
    Experiment(
        "pause-workers",
        "p",
        "pause / resume the workers",
        "Queue: depth grows, nothing is processed, then it drains",
        needs=NEEDS_QUEUE,
        toggle="resume-workers",
    ),
    Experiment(
        "fail-next",
        "n",
        "fail the next N work items",
        "Queue: each failed key requeued after its rate limiter's delay, which doubles with the key's "
        "failures (default 5ms: too short to see waiting; --rate-limiter exponential:500ms,60s)",
        needs=NEEDS_QUEUE,
        prompt=COUNT,
        default="3",
    ),
    Experiment(
        "add-handler",
        "h",
        "add a handler now, with a resync period",
        "Resync: the period asked and the period got (raised to the check period)",
        prompt=DURATION,
        default="3s",
    ),
    Experiment(
        "expired-storm",
        "g",
        "410 storm: the next 3 watches answer 410 Gone",
        "RV: ✗ 410 then R relist, three times",
        needs=NEEDS_SIM,
    ),
    Experiment(
        "compaction",
        "c",
        "compaction at the current RV",
        "RV: watches end; a client behind the compaction gets 410 and relists",
        needs=NEEDS_SIM,
    ),
    Experiment(
        "drop-watches",
        "d",
        "drop all watches",
        "RV: the watch ends and reopens from the last RV, no list",
        needs=NEEDS_SIM,
    ),
    Experiment(
        "burst",
        "b",
        "a burst of 20 updates on the selected key",
        "Deltas and FIFO: 20 Updated for one key (pause the FIFO first to see them wait)",
        needs=NEEDS_SIM,
    ),
)

BY_NAME = {e.name: e for e in CATALOG}
BY_KEY = {e.key: e for e in CATALOG}
STORM_WATCHES = 3
BURST_UPDATES = 20
MAX_COUNT = 1000

UNAVAILABLE = {
    NEEDS_QUEUE: "queue mode only (kubectl informer queue): watch runs no workers",
    NEEDS_SIM: "simulated cluster only (--demo): a real cluster is never written to",
}
