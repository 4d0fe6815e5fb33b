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
from tests.security.hostile_server import HostileServer, run_cli, run_here, write_kubeconfig

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

# In this process (imports done) each state is reached well within 1.5 s,
# even beside two busy loops. A child gets 3 s: the kubernetes client's
# imports come after the run's first request, and at load 15 they took
# longer than 1.5 s.
DURATION = 1.5
CHILD_DURATION = 3.0
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


def lateness(server: HostileServer, o, duration: float = DURATION) -> float:
    return o.ended - server.first_request_at - duration


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
    o = run_cli(kc, "watch", "pods", "-o", "json", "--duration", f"{CHILD_DURATION:g}s", timeout=60)
    assert o.rc == 0 and o.stderr == "", o.stderr
    assert STATES[behaviour](server, o), [e["kind"] for e in o.events]
    assert lateness(server, o, CHILD_DURATION) < LATE_AT_MOST, lateness(server, o, CHILD_DURATION)


def test_duration_ends_a_run_whose_discovery_is_never_answered(server_for):
    server, kc = server_for("silent_discovery")
    o = run_cli(kc, "watch", "pods", "-o", "json", "--duration", f"{CHILD_DURATION:g}s", timeout=60)
    assert o.rc == 1 and o.stdout == ""
    assert o.stderr.startswith("error: --duration passed before the API server answered") and o.stderr.count("\n") == 1
    assert lateness(server, o, CHILD_DURATION) < LATE_AT_MOST, lateness(server, o, CHILD_DURATION)


# --- a watch that never answers ends by its own timeout -----------------------------------------

# (behaviour, seconds between the trickling watch's events): each opened with
# both clients. The six watches are opened at once (module fixture), each
# read in its own thread: they wait on sockets, not on the cores, and each
# test reads its own watch's outcome.
WATCHES = {"stalled_watch": 1.0, "silent_watch": 1.0, "trickle_then_silent_watch": 0.35}
WATCH_TIMEOUT = 2  # the watch's timeoutSeconds
WATCH_BOUND = WATCH_TIMEOUT + WATCH_CUT_AFTER + 3  # a watch still open then has failed


def _open_watch(server: HostileServer, kubeconfig, outcome: dict) -> threading.Thread:
    """Open the informer's watch (not the probe: timeoutSeconds > 1) and read
    it in a thread, filling ``outcome`` with what it gave or raised and the
    seconds it took to end."""
    client = load_kube(str(kubeconfig)).api_client
    lw = KubeListerWatcher(client, resolve_resource(client, "pods"), namespace="default", watch_read_grace=WATCH_GRACE)

    def read() -> None:
        t0 = time.monotonic()
        try:
            w = lw.watch(ListOptions(resource_version="10", timeout_seconds=WATCH_TIMEOUT))
            outcome["events"] = list(w)
        except Exception as e:  # noqa: BLE001 - what the reflector would get
            outcome["error"] = e
        outcome["took"] = time.monotonic() - t0

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t


@pytest.fixture(scope="module")
def watches(tmp_path_factory):
    """{(behaviour, client): outcome} of each watch of WATCHES with each
    client; an outcome without "took" is a watch still open after WATCH_BOUND."""
    tmp = tmp_path_factory.mktemp("watches")
    servers, outcomes, threads = [], {}, []
    try:
        for behaviour, every in WATCHES.items():
            for client in ("light", "kubernetes"):
                server = HostileServer(behaviour)
                servers.append(server)
                server.trickle_every = every
                outcomes[(behaviour, client)] = {}
                threads.append(
                    _open_watch(server, write_kubeconfig(server, tmp, client), outcomes[(behaviour, client)])
                )
        deadline = time.monotonic() + WATCH_BOUND
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        return {key: dict(o) for key, o in outcomes.items()}
    finally:
        for server in servers:
            server.close()


def _ended(watches, behaviour: str, client: str) -> dict:
    out = watches[(behaviour, client)]
    assert "took" in out, f"the watch was still open after {WATCH_BOUND}s"
    return out


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_that_sends_headers_then_nothing_ends_at_its_timeout(watches, client):
    out = _ended(watches, "stalled_watch", client)
    assert out.get("events") == [] and "error" not in out  # a quiet end: the reflector watches again
    assert WATCH_TIMEOUT <= out["took"] <= WATCH_TIMEOUT + WATCH_CUT_AFTER, out["took"]


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_accepted_and_never_answered_ends_at_its_timeout(watches, client):
    # Not sent again when its time has passed (on main: four tries of 32 s each).
    out = _ended(watches, "silent_watch", client)
    assert isinstance(out.get("error"), OSError), out  # no answer at all: an error, backed off from
    assert "timed out" in str(out["error"]) and "Tracked" not in str(out["error"])
    assert WATCH_TIMEOUT <= out["took"] <= WATCH_TIMEOUT + WATCH_CUT_AFTER, out["took"]


@pytest.mark.parametrize("client", ["light", "kubernetes"])
def test_a_watch_that_trickles_then_falls_silent_ends_at_its_timeout(watches, client):
    # Bytes keep coming (an event every 0.35 s, each read well within the
    # read timeout of 2.5 s) for 1.75 s, then stop: the watch's own deadline
    # still holds, counted from its start (2.5 s), where a read timeout alone
    # would end it at 4.25 s.
    out = _ended(watches, "trickle_then_silent_watch", client)
    assert len(out.get("events", [])) == 6 and "error" not in out, out
    assert 1.75 <= out["took"] <= WATCH_TIMEOUT + WATCH_CUT_AFTER, out["took"]
