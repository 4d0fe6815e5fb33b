"""A hostile server cannot drive our memory up: every answer has a cap.

The real command (``watch pods -o json``) against answers that never end: a
watch line, one object of a list, a list whose items never start, an error
page; through the light client and the kubernetes client (urllib3). The
trace must say which limit was hit, with the reflector backing off and trying
again as for any other failure; once it did (twice), the run, still going, is
ended with Ctrl-C (130, nothing on stderr), and its peak RSS (the child's
VmHWM) is under 256 MiB. (``--duration`` ending such runs on time is
test_duration_bound's.) On main, an endless watch line took RSS to
gigabytes. Before the informer runs (the one-item probe list) it is the run's one ``error:`` line, exit 1; and
``replay`` refuses a line beyond its cap (``replay /dev/zero`` reached 8 GB).
"""

from __future__ import annotations

import gzip
import json
import subprocess

import pytest

from kubectl_informer.kube import rest
from kubectl_informer.kube.config import load_kube
from tests.security.hostile_server import (
    PODS,
    HostileServer,
    _Popen,
    command,
    run_each_against_its_server,
    run_until,
    write_kubeconfig,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

RSS_LIMIT_MIB = 256
FRAME_LIMIT = "is larger than 16 MiB, the limit; not read further"


@pytest.fixture
def hostile(server_for):
    """The hostile servers of tests/security/conftest.py, by this module's name."""
    return server_for


def errors_of(o, kind: str) -> list[str]:
    return [e["fields"]["error"] for e in o.kinds(kind) if e["fields"].get("error")]


def backed_off_twice(kind: str, what: str):
    """``kind`` (watch.end or list.done) failed at least twice naming the
    limit, with a back-off between: tried again, not a dead end."""

    def holds(o) -> bool:
        failed = [e for e in errors_of(o, kind) if what in e and FRAME_LIMIT in e]
        return len(failed) >= 2 and bool(o.kinds("reflector.backoff") and o.kinds("relist"))

    return holds


def retries_of(o) -> list[str]:
    return [line for line in o.stderr_lines if line.startswith("retrying in ")]


WATCH_LINE = "unable to decode an event from the watch stream: an event (one line of the stream)"
LIST_OBJECT = f"reading {PODS}: one object of the list"
LIST_HEAD = f"reading {PODS}: a List whose items could not be found as they came"
# Each run: (server behaviour, client, output, what ends it with Ctrl-C once
# it holds). They wait out the reflector's back-offs (800 ms, 1.6 s), real
# time, so they run side by side (module fixture) and each test reads its own.
RUNS = {
    "watch-line-light": ("endless_watch_line", "light", "json", backed_off_twice("watch.end", WATCH_LINE)),
    "watch-line-kubernetes": ("endless_watch_line", "kubernetes", "json", backed_off_twice("watch.end", WATCH_LINE)),
    "watch-line-unchunked": (
        "endless_watch_line_unchunked",
        "light",
        "json",
        backed_off_twice("watch.end", WATCH_LINE),
    ),
    "list-object-light": ("endless_list_object", "light", "json", backed_off_twice("list.done", LIST_OBJECT)),
    "list-object-kubernetes": ("endless_list_object", "kubernetes", "json", backed_off_twice("list.done", LIST_OBJECT)),
    "list-head-light": ("endless_list_head", "light", "json", backed_off_twice("list.done", LIST_HEAD)),
    "list-object-text": ("endless_list_object", "light", "text", lambda o: len(retries_of(o)) >= 2),
    "error-page": ("endless_error_page", "light", "json", lambda o: errors_of(o, "list.done").count("500 oops") >= 2),
    "first-list-light": ("endless_probe_list", "light", "json", backed_off_twice("list.done", LIST_HEAD)),
    "first-list-kubernetes": ("endless_probe_list", "kubernetes", "json", backed_off_twice("list.done", LIST_HEAD)),
}

AT_ONCE = 5


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{name: (server, finished run)} for RUNS: each the real command
    (``watch pods -o OUTPUT``) against its own server, ended with Ctrl-C once
    its condition held; a run that never got there fails its own test
    (through its future's result)."""
    tmp = tmp_path_factory.mktemp("memory")

    def run(name: str, server: HostileServer):
        _behaviour, client, output, until = RUNS[name]
        kc = write_kubeconfig(server, tmp, client)
        return run_until(kc, "watch", "pods", "-o", output, until=until, timeout=60)

    return run_each_against_its_server({name: behaviour for name, (behaviour, *_rest) in RUNS.items()}, run, AT_ONCE)


def assert_ended_by_ctrl_c(o) -> None:
    """Still running when Ctrl-C came (no failure ended it), quietly, small."""
    assert (o.rc, o.stderr) == (130, "")
    assert o.max_rss_mib < RSS_LIMIT_MIB, o.max_rss_mib


def assert_bounded_and_backed_off(o, kind: str, what: str) -> None:
    assert_ended_by_ctrl_c(o)
    assert backed_off_twice(kind, what)(o), errors_of(o, kind)


@pytest.mark.parametrize("name", ["watch-line-light", "watch-line-kubernetes", "watch-line-unchunked"])
def test_a_watch_line_that_never_ends_is_cut_at_16_mib(runs, name):
    server, finished = runs[name]
    o = finished.result()
    assert_bounded_and_backed_off(o, "watch.end", WATCH_LINE)
    assert o.kinds("informer.synced")  # the list itself was fine
    assert server.started_watches >= 2


@pytest.mark.parametrize(
    "name,what",
    [("list-object-light", LIST_OBJECT), ("list-object-kubernetes", LIST_OBJECT), ("list-head-light", LIST_HEAD)],
)
def test_a_list_that_never_ends_is_cut_at_16_mib_an_object(runs, name, what):
    server, finished = runs[name]
    o = finished.result()
    assert_bounded_and_backed_off(o, "list.done", what)
    backoffs = [e["fields"].get("error", "") for e in o.kinds("reflector.backoff")]
    assert any(FRAME_LIMIT in b for b in backoffs), backoffs
    assert not o.kinds("informer.synced")


def test_text_output_says_the_limit_on_stderr_one_line_each(runs):
    server, finished = runs["list-object-text"]
    o = finished.result()
    assert o.rc == 130 and o.stdout == ""
    assert o.max_rss_mib < RSS_LIMIT_MIB, o.max_rss_mib
    retries = retries_of(o)
    assert len(retries) >= 2 and all(f"one object of the list {FRAME_LIMIT}" in line for line in retries), o.stderr
    assert all(line.startswith(("retrying in ", "relisting (")) for line in o.stderr_lines), o.stderr


def test_an_error_page_that_never_ends_is_read_to_1_mib_only(runs):
    server, finished = runs["error-page"]
    o = finished.result()
    assert_ended_by_ctrl_c(o)
    # The status line and the page's title are all that is needed of it.
    assert errors_of(o, "list.done").count("500 oops") >= 2, errors_of(o, "list.done")
    assert server.started_lists >= 2


@pytest.mark.parametrize("name", ["first-list-light", "first-list-kubernetes"])
def test_an_endless_first_list_is_backed_off_from_as_any_list(runs, name):
    # No probe list goes before the informer's (it used to end the run here
    # with one line): the informer's own first list meets the cap and the
    # reflector backs off from it as from any list, and goes on.
    server, finished = runs[name]
    o = finished.result()
    assert_bounded_and_backed_off(o, "list.done", LIST_HEAD)
    assert not o.kinds("informer.synced") and server.started_lists >= 2


def test_a_list_page_beyond_the_list_limit_is_refused_naming_it(hostile):
    """The 1 GiB page limit, scaled down to what a test can send: the same
    code with a smaller ``max_bytes``, against real HTTP."""
    from kubectl_informer.kube.limits import TooLargeError

    server, kc = hostile("pods")
    client = load_kube(str(kc)).api_client
    listed = {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {},
        "items": [{"metadata": {"name": f"p{i}", "namespace": "default"}} for i in range(2000)],
    }
    body_len = len(json.dumps(listed))
    server.srv.routes[PODS] = listed
    assert rest.get_list(client, PODS, max_bytes=body_len)["items"][1999]["metadata"]["name"] == "p1999"
    with pytest.raises(TooLargeError) as e:
        rest.get_list(client, PODS, max_bytes=64 * 1024)
    assert str(e.value) == f"reading {PODS}: the list is larger than 64 KiB, the limit; not read further"


def test_an_error_body_is_read_up_to_its_limit_only(hostile):
    from kubectl_informer.kube.limits import MAX_ERROR_BODY, size_text
    from tests.kube.fake_apiserver import Reply

    server, kc = hostile("pods")
    page = b"<html><title>502 bad gateway</title>" + b" " * (3 * MAX_ERROR_BODY)
    server.srv.routes[PODS] = Reply(502, page, {"Content-Type": "text/html"})
    resp_reads = []
    real = rest.read_at_most

    def spy(resp, limit):
        body = real(resp, limit)
        resp_reads.append(len(body))
        return body

    rest.read_at_most = spy
    try:
        with pytest.raises(rest.ApiError) as e:
            rest.get_list(load_kube(str(kc)).api_client, PODS)
    finally:
        rest.read_at_most = real
    assert e.value.status == 502 and "502 bad gateway" in e.value.message
    assert resp_reads == [MAX_ERROR_BODY], resp_reads
    assert size_text(MAX_ERROR_BODY) == "1 MiB"


# --- replay ------------------------------------------------------------------------------------


def replay(path: str, timeout: float = 60.0):
    p = _Popen(command("replay", path, "-o", "json"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out.decode(), err.decode(), p.peak_mib


def test_replay_of_dev_zero_stops_at_the_line_limit():
    rc, out, err, rss = replay("/dev/zero")
    assert rc == 1 and out == ""
    assert err == (
        "error: /dev/zero line 1: longer than 16 MiB, the limit for one trace event (expected the "
        "NDJSON lines of -o json)\n"
    )
    assert rss < RSS_LIMIT_MIB, rss


@pytest.mark.parametrize("compressed", [False, True])
def test_replay_refuses_a_long_line_after_good_ones(tmp_path, compressed):
    good = json.dumps({"v": 2, "seq": 1, "time": 1.0, "kind": "relist", "key": None, "fields": {"reason": "error"}})
    data = (good + "\n").encode() * 2 + b"{" + b" " * (17 << 20) + b"}\n"
    path = tmp_path / ("long.ndjson.gz" if compressed else "long.ndjson")
    path.write_bytes(gzip.compress(data, 1) if compressed else data)
    rc, out, err, rss = replay(str(path))
    assert rc == 1 and out == ""
    assert (
        err == f"error: {path} line 3: longer than 16 MiB, the limit for one trace event (expected the "
        "NDJSON lines of -o json)\n"
    )
    assert rss < RSS_LIMIT_MIB, rss


# --- attach: a metrics page is read whole, so it is capped as one document ------------------


def test_a_metrics_page_that_never_ends_is_refused_at_16_mib():
    from kubectl_informer.attach.scrape import ScrapeError, UrlScraper
    from tests.kube.fake_apiserver import FakeAPIServer, Raw

    stop = HostileServer("pods")  # for its stop event only; its own server is not used
    srv = FakeAPIServer().start()

    def endless(h, req):
        stop._endless(h, b"# HELP x\n# TYPE x counter\nx 1\n# ")

    srv.routes["/metrics"] = Raw(endless)
    try:
        with pytest.raises(ScrapeError) as e:
            UrlScraper(f"{srv.url}/metrics", timeout=30).fetch()
    finally:
        stop.close()
        srv.stop()
    assert str(e.value) == f"{srv.url}/metrics: the metrics page is larger than 16 MiB, the limit; not read further"
