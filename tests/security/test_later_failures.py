"""A server that starts well and then fails (401, 403, 500, a reset connection):
the run goes on, backs off as client-go's reflector does, says what happened in
words, and never ends in a traceback or a runaway of requests or memory.

The eight runs (four failures, two clients) run four at a time in a module
fixture and each test reads its own: each waits out a good watch (held past a
second, so not a "very short watch") and an 800 ms back-off, real time a run
cannot skip, and nothing here bounds a run's time (only the signal ends it),
so waiting for them one after the other bought nothing."""

from __future__ import annotations

import pytest

from tests.security.hostile_server import HostileServer, run_each_against_its_server, run_until, write_kubeconfig

pytestmark = pytest.mark.e2e

WORDS = {
    "later_401": ("401", "nauthorized"),
    "later_403": ("403", "forbidden"),
    "later_500": ("500", "leader changed"),
    "later_reset": ("reset", "connection"),
}


def tried_again_after_a_back_off(o) -> bool:
    """A back-off was traced, and a list or watch started after it: the run
    went on past the failure (client-go's reflector waits 800 ms, then more)."""
    kinds = [e["kind"] for e in o.events]
    return "reflector.backoff" in kinds and any(
        k in ("list.start", "watch.start") for k in kinds[kinds.index("reflector.backoff") :]
    )


CLIENTS = ("light", "kubernetes")
AT_ONCE = 4


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{(behaviour, client): (server, finished run)}: one server and one run
    of the real command each, four at a time, each ended by Ctrl-C as
    soon as it tried again after a back-off (a run that failed to get there
    fails its own test, through its future's result)."""
    tmp = tmp_path_factory.mktemp("later")

    def run(key, server: HostileServer):
        kc = write_kubeconfig(server, tmp, key[1])
        return run_until(kc, "watch", "pods", "-o", "json", until=tried_again_after_a_back_off, timeout=60)

    return run_each_against_its_server({(b, c): b for b in WORDS for c in CLIENTS}, run, AT_ONCE)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("behaviour", sorted(WORDS))
def test_a_failure_after_a_good_start_backs_off_and_the_run_goes_on(runs, behaviour, client):
    server, finished = runs[(behaviour, client)]
    o = finished.result()

    # The failure did not end the run: it was still going when Ctrl-C came, and ends quietly.
    assert o.rc == 130, o.stderr
    assert tried_again_after_a_back_off(o), [e["kind"] for e in o.events][-20:]
    assert "Traceback" not in o.stderr and o.stderr.count("\n") <= 1, o.stderr
    # The good start reached the cache.
    assert "default/web-3" in {e["key"] for e in o.kinds("store.add")}
    assert o.kinds("informer.synced")
    # Then every failure is traced with what happened, in words, and waited out.
    backoffs = o.kinds("reflector.backoff")
    assert backoffs, [e["kind"] for e in o.events][-20:]
    said = " ".join(str(e["fields"].get("error", "")) for e in backoffs).lower()
    assert any(w.lower() in said for w in WORDS[behaviour]), said
    assert all(float(e["fields"]["delay"]) > 0 for e in backoffs)
    # Back-off, not a hammering loop: client-go's reflector starts at 800 ms
    # and doubles, so a handful of lists fit in the run, never hundreds.
    lists = [r for r in server.srv.requests if r.path.endswith("/pods") and "watch=" not in r.query]
    assert len(lists) <= 12, len(lists)
    assert o.max_rss_mib < 256
