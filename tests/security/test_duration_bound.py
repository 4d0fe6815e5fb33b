"""``--duration`` ends the run within a second of its time, whatever state
the server left it in; a watch the server accepted and never answers is cut
by the watch's own timeout.

Lateness is counted from the first request the server got (the run counts
``--duration`` from a few milliseconds before it) to the moment the run had
ended: the child had exited, or, for the states run in this process, the
CLI's main had returned and the run's non-daemon threads had ended (what
the process's exit would wait for; its daemon threads must end as well).
On main a list or a watch accepted and never answered held the end up by
5 s (the stop's join timeout): the request was not cut.
"""

from __future__ import annotations

import threading
import time

import pytest

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.kube.config import load_kube
from kubectl_informer.kube.discovery import resolve_resource
from kubectl_informer.kube.listwatch import KubeListerWatcher

from tests.security.hostile_server import HostileServer, run_cli, run_here

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

DURATION = 3.0
# The promise is a second; a run ends 0.0-0.4 s after its time even on a
# machine at load 12 (two busy loops beside the suite). The bound leaves room
# for a process kept off both cores for a moment (1.08 and 1.10 s were seen
# under those loops) and still catches what it is for: a request not cut,
# which held the end up by 5 s.
LATE_AT_MOST = 2.0
# client-go gives a watch exactly its timeoutSeconds; "a bit after" is the
# lister-watcher's grace (5 s in a run, so that the server's own clean end
# comes first). The tests give it half a second, and allow this much more.
WATCH_GRACE = 0.5
WATCH_CUT_AFTER = WATCH_GRACE + 1.0




def lateness(server: HostileServer, o) -> float:
    return o.ended - server.first_request_at - DURATION


# Each state a run can be in when its time is up, and what shows it was there.
STATES = {
    "silent_list": lambda s, o: o.kinds("list.start") and not o.kinds("list.done"),
    "slow_loris": lambda s, o: o.kinds("list.progress") and not o.kinds("list.done"),
    "silent_watch": lambda s, o: s.started_watches == 1 and o.kinds("informer.synced"),
    "stalled_watch": lambda s, o: o.kinds("watch.start") and not o.kinds("watch.end"),
    "failing_list": lambda s, o: len(o.kinds("reflector.backoff")) >= 1,
    "endless_watch_line": lambda s, o: o.kinds("watch.end") and o.kinds("reflector.backoff"),
    "endless_list_object": lambda s, o: o.kinds("list.done") and o.kinds("reflector.backoff"),
}


@pytest.mark.parametrize("behaviour", list(STATES))
def test_duration_ends_every_state_within_a_second(server_for, behaviour):
    server, kc = server_for(behaviour)
    o = run_here(kc, "watch", "pods", "-o", "json", "--duration", f"{DURATION:g}s")
    assert o.rc == 0 and o.stderr == "", o.stderr
    assert STATES[behaviour](server, o), [e["kind"] for e in o.events]
    assert lateness(server, o) < LATE_AT_MOST, lateness(server, o)


@pytest.mark.parametrize("behaviour", ["silent_list", "silent_watch"])
def test_the_kubernetes_client_is_cut_as_well(server_for, behaviour):
    server, kc = server_for(behaviour, "kubernetes")
    o = run_cli(kc, "watch", "pods", "-o", "json", "--duration", f"{DURATION:g}s", timeout=60)
    assert o.rc == 0 and o.stderr == "", o.stderr
    assert STATES[behaviour](server, o), [e["kind"] for e in o.events]
    assert lateness(server, o) < LATE_AT_MOST, lateness(server, o)


def test_duration_ends_a_run_whose_discovery_is_never_answered(server_for):
    server, kc = server_for("silent_discovery")
    o = run_cli(kc, "watch", "pods", "-o", "json", "--duration", f"{DURATION:g}s", timeout=60)
    assert o.rc == 1 and o.stdout == ""
    assert o.stderr.startswith("error: --duration passed before the API server answered") and \
        o.stderr.count("\n") == 1
    assert lateness(server, o) < LATE_AT_MOST, lateness(server, o)


# --- a watch that never answers ends by its own timeout -----------------------------------------

def _watch_until_it_ends(server_for, behaviour: str, client: str, timeout_seconds: int, bound: float,
                         trickle_every: float = 1.0):
    """Open the informer's watch (not the probe: timeoutSeconds > 1) and read
    it in a thread; (seconds it took to end, what it raised), at most ``bound``."""
    server, kc = server_for(behaviour, client)
    server.trickle_every = trickle_every
    client = load_kube(str(kc)).api_client
    lw = KubeListerWatcher(client, resolve_resource(client, "pods"), namespace="default",
                           watch_read_grace=WATCH_GRACE)
    outcome: dict = {}

    def read() -> None:
        t0 = time.monotonic()
        try:
            w = lw.watch(ListOptions(resource_version="10", timeout_seconds=timeout_seconds))
            outcome["events"] = list(w)
        except Exception as e:  # noqa: BLE001 - what the reflector would get
            outcome["error"] = e
        outcome["took"] = time.monotonic() - t0

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(bound)
    assert not t.is_alive(), f"the watch was still open after {bound}s"
    return outcome


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_that_sends_headers_then_nothing_ends_at_its_timeout(server_for, client):
    out = _watch_until_it_ends(server_for, "stalled_watch", client, 2, bound=2 + WATCH_CUT_AFTER + 3)
    assert out.get("events") == [] and "error" not in out  # a quiet end: the reflector watches again
    assert 2 <= out["took"] <= 2 + WATCH_CUT_AFTER, out["took"]


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_accepted_and_never_answered_ends_at_its_timeout(server_for, client):
    # Not sent again when its time has passed (on main: four tries of 32 s each).
    out = _watch_until_it_ends(server_for, "silent_watch", client, 2, bound=2 + WATCH_CUT_AFTER + 3)
    assert isinstance(out.get("error"), OSError), out  # no answer at all: an error, backed off from
    assert "timed out" in str(out["error"]) and "Tracked" not in str(out["error"])
    assert 2 <= out["took"] <= 2 + WATCH_CUT_AFTER, out["took"]


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_that_trickles_then_falls_silent_ends_at_its_timeout(server_for, client):
    # Bytes keep coming (an event every 0.35 s, each read well within the
    # read timeout of 2.5 s) for 1.75 s, then stop: the watch's own deadline
    # still holds, counted from its start (2.5 s), where a read timeout alone
    # would end it at 4.25 s.
    out = _watch_until_it_ends(server_for, "trickle_then_silent_watch", client, 2, bound=2 + WATCH_CUT_AFTER + 3,
                               trickle_every=0.35)
    assert len(out.get("events", [])) == 6 and "error" not in out, out
    assert 1.75 <= out["took"] <= 2 + WATCH_CUT_AFTER, out["took"]
