"""Nothing the server sends is dropped without a word.

- A watch event the reflector cannot understand (no metadata, metadata that
  is not a map, an unknown type) is skipped as client-go skips it, and
  client-go logs "unable to understand watch event": here it is a
  ``watch.skipped`` trace event, counted in the header.
- A redacted Secret value that changes but keeps its length diffs as
  ``<changed, redacted N bytes>``: on main both sides read
  ``<redacted N bytes>`` and the update showed no change. The value itself
  never appears in any output.
"""

from __future__ import annotations

import base64
from concurrent.futures import ThreadPoolExecutor

import pytest

from kubectl_informer.core.diff import diff_changes, diff_summary
from kubectl_informer.panes.header import HeaderState
from kubectl_informer.panes.objects import format_change, to_yaml
from kubectl_informer.run.transforms import redact_secret
from tests.security.hostile_server import PASSWORDS, run_cli, run_here, secret
from tests.tui.helpers import TraceMaker, make_app, run, screen_text

pytestmark = pytest.mark.timeout(120)


@pytest.mark.e2e
def test_watch_events_without_metadata_are_traced_not_dropped(server_for):
    server, kc = server_for("no_metadata_events")
    # In this process (imports done) the watch's events come within ms of the start.
    o = run_here(kc, "watch", "pods", "-o", "json", "--duration", "1.5s")
    assert o.rc == 0 and o.stderr == ""
    skipped = [(e["fields"]["type"], e["fields"]["reason"]) for e in o.kinds("watch.skipped")]
    assert skipped == [
        ("ADDED", "no metadata"),
        ("MODIFIED", "no metadata"),
        ("ADDED", "no metadata"),
        ("SURPRISE", "unknown type"),
    ]
    # ... and the watch goes on: the good event after them reaches the cache, without a relist.
    assert "default/web-3" in {e["key"] for e in o.kinds("store.add")}
    assert not o.kinds("relist")


def test_the_header_counts_skipped_events():
    st = HeaderState()
    e = TraceMaker(step=0.1)
    e("watch.start", resource_version="10")
    e("watch.skipped", type="ADDED", reason="no metadata")
    e("watch.skipped", type="SURPRISE", reason="unknown type")
    for ev in e.events:
        st.feed(ev)
    assert st.skipped == 2


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
def test_the_header_shows_skipped_events(size):
    e = TraceMaker(step=0.1)
    e("informer.start", fifo="DeltaFIFO", watch_list=False, resync_check_period=0.0)
    e("watch.start", resource_version="10")
    e("watch.skipped", type="ADDED", reason="no metadata")
    e("watch.skipped", type="MODIFIED", reason="no metadata")
    e("watch.skipped", type="SURPRISE", reason="unknown type")
    app = make_app(e)

    async def check(pilot):
        health = screen_text(app).splitlines()[1]
        assert "3 skipped" in health, health

    run(check, app, size)


# --- Secrets --------------------------------------------------------------------------------------


def redacted_secret(password: bytes) -> dict:
    obj = secret(1, password)
    redact_secret(obj)
    return obj


def test_a_secret_value_that_changes_keeping_its_length_shows_as_changed():
    first, other, longer = PASSWORDS
    a, b, c = redacted_secret(first), redacted_secret(other), redacted_secret(longer)
    assert diff_summary(a, b) == ["data.password <changed, redacted 13 bytes>"]
    assert [format_change(ch) for ch in diff_changes(a, b)] == ["data.password  <changed, redacted 13 bytes>"]
    assert diff_summary(a, redacted_secret(first)) == []  # the same value: no change
    assert diff_summary(b, c) == ["data.password <redacted 13 bytes>→<redacted 15 bytes>"]
    for text in (str(b), to_yaml(b), repr(b["data"]["password"])):
        assert base64.b64encode(other).decode() not in text and "hunter2" not in text


def test_the_stringdata_of_a_secret_is_compared_the_same_way():
    a = {"kind": "Secret", "metadata": {"name": "s"}, "stringData": {"token": "abcd"}}
    b = {"kind": "Secret", "metadata": {"name": "s"}, "stringData": {"token": "wxyz"}}
    redact_secret(a)
    redact_secret(b)
    assert diff_summary(a, b) == ["stringData.token <changed, redacted 4 bytes>"]


@pytest.mark.e2e
def test_the_real_command_shows_a_same_length_secret_change_and_never_the_value(server_for):
    server, kc = server_for("secret_same_length")
    # The two outputs of one server's story, run at the same time: each waits out its --duration.
    with ThreadPoolExecutor(2) as pool:
        runs = [
            pool.submit(run_cli, kc, "watch", "secrets", "-o", output, "--duration", "3s")
            for output in ("json", "text")
        ]
    o, text = (r.result() for r in runs)
    assert o.rc == 0 and o.stderr == ""
    diffs = [e["fields"]["diff"] for e in o.kinds("store.update")]
    assert diffs == [
        ["data.password <changed, redacted 13 bytes>"],
        [],
        ["data.password <redacted 13 bytes>→<redacted 15 bytes>"],
    ]
    for password in PASSWORDS:
        assert password.decode() not in o.stdout and base64.b64encode(password).decode() not in o.stdout
    assert "<changed, redacted 13 bytes>" in text.stdout and "hunter2" not in text.stdout + text.stderr
