"""See the object: the Inspector's whole-history timeline with full diffs,
the bounded object history behind it, and the YAML screen (Secrets redacted)."""

import copy

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core.diff import diff_summary
from kubectl_informer.core.predicates import update_predicates
from kubectl_informer.core.trace import TraceBuffer, Tracer
from kubectl_informer.core.trace_kinds import STORE_ADD, STORE_DELETE, STORE_UPDATE
from kubectl_informer.panes.objects import ObjectHistory, redacted, to_yaml
from kubectl_informer.tui.app import InformerApp
from kubectl_informer.tui.objects import YamlScreen

from .helpers import info, pane_text, run


def pod(name, rv, restarts=0, phase="Running", labels=None):
    return {
        "metadata": {
            "name": name,
            "namespace": "default",
            "resourceVersion": str(rv),
            "labels": labels or {"app": "web"},
            "managedFields": [{"manager": "kubelet", "rv": str(rv)}],
        },
        "spec": {"containers": [{"name": "c", "image": f"nginx:{rv % 3}"}]},
        "status": {"phase": phase, "containerStatuses": [{"name": "c", "restartCount": restarts}]},
    }


def emit_life(tracer, key, n):
    """An add then ``n`` updates, emitted as the informer emits them:
    the objects in-process, summary, diff and predicates derived from them."""
    name = key.split("/")[1]
    old = pod(name, 1)
    tracer.emit_derived(STORE_ADD, key, resource_version="1", delta="Added", is_in_initial_list=False, object=old)
    for i in range(2, n + 2):
        new = pod(name, i, restarts=i - 1)
        tracer.emit_derived(
            STORE_UPDATE,
            key,
            resource_version=str(i),
            delta="Updated",
            is_in_initial_list=False,
            old_resource_version=old["metadata"]["resourceVersion"],
            object=new,
            old=old,
        )
        old = new
    return old


def app_with(emit, **kw):
    clock = FakeClock(start=1000.0)
    tracer = Tracer(clock)
    buf = TraceBuffer()
    tracer.subscribe(buf)
    emit(tracer, clock)
    return InformerApp(buf, kw.pop("info", None) or info(), clock=clock, **kw)


def test_object_history_holds_objects_for_the_newest_deltas_only():
    tracer, buf = Tracer(FakeClock()), TraceBuffer()
    tracer.subscribe(buf)
    emit_life(tracer, "default/web-1", 20)
    hist = ObjectHistory(max_keys=3, per_key=16, keep_objects=4)
    for ev in buf.drain():
        hist.add(ev)
    entries = hist.entries("default/web-1")
    assert len(entries) == 16  # the ring's bound: the oldest 5 of 21 are gone
    held = [e for e in entries if e.obj is not None]
    assert len(held) == 4 and held == entries[-4:]
    assert hist.objects_held() == 4
    assert hist.latest("default/web-1")["metadata"]["resourceVersion"] == "21"
    # A released update keeps its full diff as text, the noise last.
    old = entries[0]
    assert old.obj is None and old.old is None
    # Its event keeps no reference to the objects, and what it derived from them stays.
    raw = old.event.raw_fields
    assert "object" not in raw and "old" not in raw
    assert raw["predicates"] == update_predicates(pod("web-1", 5, restarts=4), pod("web-1", 6, restarts=5))
    assert raw["predicates"] == ["ResourceVersionChanged"] and raw["summary"] == "Running"
    assert raw["diff"] == diff_summary(pod("web-1", 5, restarts=4), pod("web-1", 6, restarts=5)) != []
    newest = entries[-1].event.raw_fields
    assert "diff" not in newest and "summary" not in newest  # the newest are untouched until drawn
    assert old.summary()[0] == "status.containerStatuses[0].restartCount 4→5"
    ranks = [r for r, _ in old.detail_lines()]
    assert ranks == sorted(ranks) and "metadata.resourceVersion  5 → 6" in [t for _, t in old.detail_lines()]
    # The key LRU: a fourth key evicts the oldest.
    for k in ("a/x", "a/y", "a/z"):
        emit_life(tracer, k, 1)
    for ev in buf.drain():
        hist.add(ev)
    assert "default/web-1" not in hist and len(hist) == 3 and hist.evicted == 1


def test_inspector_scrolls_a_keys_whole_history_and_expands_a_full_diff():
    app = app_with(lambda tracer, clock: emit_life(tracer, "default/web-1", 40), start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        pane.inspect("default/web-1")
        app.pump()
        await pilot.pause()
        lines = pane_text(pane).splitlines()
        assert lines[0].startswith("default/web-1  41 events, 41 deltas")
        # Following: the newest delta at the bottom, the earlier ones counted.
        assert lines[2].startswith("… ") and "earlier" in lines[2]
        assert "rv=41" in lines[-1] and "status.containerStatuses[0]" in lines[-1]
        await pilot.press("home")
        lines = pane_text(pane).splitlines()
        assert "store.add" in lines[2] and "rv=1 " in lines[2] and "later" in lines[-1]
        await pilot.press("pagedown")
        first = pane.row_cursor
        assert first == pane._page()
        await pilot.press("down", "down", "up")
        assert pane.row_cursor == first + 1
        assert f"rv={first + 2} " in next(ln for ln in pane_text(pane).splitlines() if f"rv={first + 2} " in ln)
        # Enter expands the delta under the cursor: every path, status first, noise last.
        await pilot.press("enter")
        text = pane_text(pane)
        assert "full diff: 4 paths" in text
        body = text.splitlines()
        i = next(n for n, ln in enumerate(body) if "full diff" in ln)
        paths = [ln.split()[0] for ln in body[i + 1 : i + 5]]
        assert paths[0] == "status.containerStatuses[0].restartCount"
        assert paths[1] == "spec.containers[0].image"
        assert set(paths[2:4]) == {"metadata.managedFields[0].rv", "metadata.resourceVersion"}
        assert f"{first} → {first + 1}" in body[i + 1]
        await pilot.press("enter")
        assert "full diff" not in pane_text(pane)
        # End follows again.
        await pilot.press("end")
        assert pane.row_cursor is None and "rv=41" in pane_text(pane).splitlines()[-1]

    run(check, app, (100, 30))


def test_replayed_updates_expand_to_the_diff_the_recording_carries():
    from .helpers import TraceMaker, make_app

    e = TraceMaker()
    e(
        "store.update",
        "ns/a",
        resource_version="2",
        old_resource_version="1",
        delta="Updated",
        summary="Running",
        diff=["status.phase Pending→Running", "labels.app +"],
        is_in_initial_list=False,
    )
    app = make_app(e, start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        pane.inspect("ns/a")
        app.pump()
        await pilot.press("enter")
        text = pane_text(pane)
        assert "full diff: 2 paths  (as recorded)" in text
        assert "status.phase Pending→Running" in text and "labels.app +" in text

    run(check, app)


SECRET = {
    "kind": "Secret",
    "metadata": {
        "name": "db",
        "namespace": "default",
        "resourceVersion": "7",
        "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{pw}"},
    },
    "type": "Opaque",
    "data": {"password": "aHVudGVyMg=="},
    "stringData": {"token": "abc"},
}


def test_yaml_redacts_secrets_unless_asked_and_never_prints_aliases():
    text = to_yaml(SECRET)
    assert "aHVudGVyMg==" not in text and "abc" not in text and "{pw}" not in text
    assert "password: <redacted 7 bytes>" in text and "token: <redacted 3 bytes>" in text
    assert SECRET["data"]["password"] == "aHVudGVyMg=="  # the object itself is untouched
    shown = to_yaml(SECRET, show_secret_data=True)
    assert "password: aHVudGVyMg==" in shown
    # Items of a secrets list have no kind: the resource says it.
    no_kind = {k: v for k, v in SECRET.items() if k != "kind"}
    assert "aHVudGVyMg==" not in to_yaml(no_kind, "secrets")
    assert redacted(no_kind, "configmaps") is no_kind
    # Redacting twice keeps the first sizes (the informer's transform redacted already).
    again = redacted(redacted(SECRET))
    assert again["data"]["password"] == "<redacted 7 bytes>"
    labels = {"app": "web"}
    shared = {"metadata": {"name": "x", "labels": labels}, "spec": {"selector": labels}}
    assert "&id" not in to_yaml(shared) and "*id" not in to_yaml(shared)


def test_yaml_hides_managed_fields_as_kubectl_does_unless_asked():
    obj = {
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "managedFields": [{"manager": "kubectl-client-side-apply"}],
            "labels": {"app": "web"},
        },
        "spec": {},
    }
    text = to_yaml(obj)
    assert "managedFields" not in text and "kubectl-client-side-apply" not in text and "app: web" in text
    assert obj["metadata"]["managedFields"]  # the object itself is untouched
    assert "manager: kubectl-client-side-apply" in to_yaml(obj, show_managed_fields=True)


def _yaml_text(app) -> str:
    screen = app.screen
    assert isinstance(screen, YamlScreen)
    return screen.title_text + "\n" + screen.text


def test_y_shows_the_selected_object_and_the_inspector_picks_a_version():
    app = app_with(lambda tracer, clock: emit_life(tracer, "default/web-1", 12))

    async def check(pilot):
        await pilot.press("y")  # the Deltas pane's cursor: the newest delta
        text = _yaml_text(app)
        assert text.startswith("default/web-1  rv=13") and "restartCount: 12" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, YamlScreen)
        await pilot.press("enter")  # into the Inspector
        await pilot.press("up", "up")
        await pilot.press("y")
        text = _yaml_text(app)
        assert "rv=11" in text.splitlines()[0] and "as of Updated" in text and "restartCount: 10" in text
        await pilot.press("escape")
        await pilot.press("home", "y")  # the add: objects beyond the last 8 deltas are released
        assert "rv=13" in _yaml_text(app).splitlines()[0]  # so y shows the newest object held

    run(check, app, (100, 30))


def test_y_on_a_secret_redacts_unless_show_secret_data():
    def emit(tracer, clock):
        s = copy.deepcopy(SECRET)
        tracer.emit_derived(
            STORE_ADD, "default/db", resource_version="7", delta="Added", is_in_initial_list=True, object=s
        )

    for show, visible in ((False, False), (True, True)):
        app = app_with(emit, info=info(resource="secrets", show_secret_data=show))

        async def check(pilot, app=app, visible=visible):
            await pilot.press("y")
            assert ("aHVudGVyMg==" in _yaml_text(app)) is visible

        run(check, app)


def test_y_without_an_object_says_why():
    def emit(tracer, clock):
        tracer.emit_derived(
            STORE_DELETE,
            "default/gone",
            resource_version="3",
            delta="Deleted",
            is_in_initial_list=False,
            tombstone=True,
            object=None,
        )

    app = app_with(emit, info=info(replay="x.ndjson"))

    async def check(pilot):
        await pilot.press("y")
        assert not isinstance(app.screen, YamlScreen)
        assert any(
            "no object held for default/gone" in n.message and "recording" in n.message for n in app._notifications
        )

    run(check, app)


def test_the_inspector_cursor_stays_on_its_row_while_the_ring_moves():
    from kubectl_informer.core.trace import TraceEvent

    from .helpers import TraceMaker, make_app

    e = TraceMaker()
    for i in range(70):
        e(
            "store.update",
            "ns/busy",
            resource_version=str(i),
            old_resource_version=str(i - 1),
            delta="Updated",
            summary="",
            diff=[f"status.n {i - 1}→{i}"],
            is_in_initial_list=False,
        )
    app = make_app(e, start_pane="inspector")

    async def check(pilot):
        pane = app.panes["inspector"]
        pane.inspect("ns/busy")
        app.pump()
        await pilot.press("up", "up", "up")
        held = pane.cursor_entry().event.fields["resource_version"]
        assert held == "66"
        # Ten more deltas: the ring (64) drops ten old ones, the cursor keeps its delta.
        for i in range(70, 80):
            app.buffer.extend(
                [
                    TraceEvent.build(
                        1000 + i, 200.0 + i, "store.update", "ns/busy", resource_version=str(i), delta="Updated"
                    )
                ]
            )
        app.pump()
        assert pane.cursor_entry().event.fields["resource_version"] == "66"
        assert pane.row_cursor == 66 - 16  # its index moved down as old rows left

    run(check, app)
