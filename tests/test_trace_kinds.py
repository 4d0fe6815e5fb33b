"""The trace contract (kubectl_informer.core.trace_kinds): every emitted kind and
field is declared, recordings of both versions read back, the docs' table is
the declaration's."""

import ast
import pathlib

import pytest

from kubectl_informer.clock.testing import FakeClock
from kubectl_informer.core import trace_kinds
from kubectl_informer.core.diff import diff_summary
from kubectl_informer.core.trace import DerivedTraceEvent, TraceBuffer, TraceEvent, Tracer, read_trace
from kubectl_informer.core.trace_kinds import KINDS, ContractError, Kind

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kubectl_informer"


def _emit_calls():
    """(file, line, kind name, keyword names) of every ``.emit(...)`` call in the package."""
    constants = {name: value for name, value in vars(trace_kinds).items() if isinstance(value, Kind)}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("emit", "emit_derived")
            ):
                continue
            if not node.args:
                continue
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in constants:
                kinds = [constants[first.id]]
            elif isinstance(first, ast.Name) and first.id in ("kind", "event"):
                kinds = None  # a Kind passed through a variable: checked at run time by the tests
            else:
                kinds = [ast.unparse(first)]
            names = [k.arg for k in node.keywords if k.arg is not None]
            yield path.relative_to(ROOT), node.lineno, kinds, names


def test_every_emit_in_the_package_names_a_declared_kind_constant_and_declared_fields():
    calls = list(_emit_calls())
    assert len(calls) > 40  # the scan sees the emitters
    problems = []
    for where, line, kinds, names in calls:
        if kinds is None:
            continue
        for kind in kinds:
            if kind not in KINDS:
                problems.append(f"{where}:{line}: {kind} is not a trace_kinds constant")
                continue
            problems += [f"{where}:{line}: {kind} has no field {n!r}" for n in names if n not in KINDS[kind].fields]
    assert problems == []


def test_a_checking_tracer_refuses_undeclared_kinds_fields_keys_and_types(monkeypatch):
    monkeypatch.setenv("KUBECTL_INFORMER_TRACE_CHECK", "1")
    t = Tracer(FakeClock())
    t.subscribe(TraceBuffer())
    with pytest.raises(ContractError, match="undeclared kind 'fifo.teleport'"):
        t.emit("fifo.teleport", "ns/a")
    with pytest.raises(ContractError, match="undeclared field 'colour'"):
        t.emit("watch.start", None, resource_version="1", colour="red")
    with pytest.raises(ContractError, match="missing field 'resource_version'"):
        t.emit("watch.start", None)
    with pytest.raises(ContractError, match="key None must be a str"):
        t.emit("watch.event", None, type="ADDED", resource_version="1")
    with pytest.raises(ContractError, match="pending=.* is not int"):
        t.emit("fifo.queue", "ns/a", type="Added", depth=1, pending=["Added"])
    with pytest.raises(ContractError, match="is not one of"):
        t.emit("relist", None, reason="felt like it")
    with pytest.raises(ContractError, match="needs emit_derived"):
        t.emit(
            "store.update",
            "ns/a",
            resource_version="2",
            delta="Updated",
            is_in_initial_list=False,
            old_resource_version="1",
        )
    t.emit("watch.start", None, resource_version="1")  # a declared event passes


def test_hand_built_events_go_through_the_contract():
    ev = TraceEvent.build(1, 0.5, "queue.add", "ns/a", outcome="queued")
    assert ev.fields == {"outcome": "queued", "depth": 0}
    with pytest.raises(ContractError):
        TraceEvent.build(1, 0.5, "queue.add", "ns/a", outcome="queued", pending=3)


def test_a_kind_is_its_name_on_the_wire():
    ev = TraceEvent(1, 0.0, trace_kinds.WATCH_START, None, {"resource_version": "5", "v": None})
    assert '"kind":"watch.start"' in ev.to_json()
    assert trace_kinds.WATCH_START == "watch.start" and {"watch.start": 1}[trace_kinds.WATCH_START] == 1


def test_recordings_are_version_2_and_version_1_lines_still_read():
    ev = TraceEvent.build(3, 1.0, "watch.end", None, resource_version="7", error="410 Expired: too old", expired=True)
    line = ev.to_json()
    assert line.endswith('"v":2}')
    assert read_trace([line]) == [ev]
    # Before the contract, a 410 was only in the prose, and lines had no "v".
    v1 = (
        b'{"seq":3,"time":1.0,"kind":"watch.end","key":null,"fields":{"resource_version":"7",'
        b'"error":"410 Expired: too old resource version"}}'
    )
    old = b'{"seq":4,"time":1.5,"kind":"watch.end","key":null,"fields":{"resource_version":"7","reason":"closed"}}'
    a, b = read_trace([v1, old])
    assert a.fields["expired"] is True and b.fields["expired"] is False
    assert trace_kinds.check_event(a.kind, a.key, a.fields) == []


def test_a_derived_field_is_computed_when_read_and_written_to_json(monkeypatch):
    old = {"metadata": {"name": "a", "resourceVersion": "1", "labels": {"app": "web"}}, "status": {"phase": "Pending"}}
    new = {"metadata": {"name": "a", "resourceVersion": "2", "labels": {"app": "web"}}, "status": {"phase": "Running"}}
    calls = []
    derive = dict(trace_kinds.STORE_UPDATE.derive)

    def counted(f):
        calls.append(1)
        return derive["diff"](f)

    monkeypatch.setitem(trace_kinds.STORE_UPDATE.derive, "diff", counted)
    # As the informer emits it: the objects, none of what is derived from them.
    t = Tracer()
    buf = TraceBuffer()
    t.subscribe(buf)
    t.emit_derived(
        trace_kinds.STORE_UPDATE,
        "ns/a",
        resource_version="2",
        delta="Updated",
        is_in_initial_list=False,
        old_resource_version="1",
        object=new,
        old=old,
    )
    (ev,) = buf.drain()
    assert type(ev) is DerivedTraceEvent and "diff" not in ev.raw_fields
    # One field asked for is derived alone.
    assert ev.field("labels") == {"app": "web"} and ev.field("summary") == "Running"
    assert calls == [] and "predicates" not in ev.raw_fields
    assert ev.fields["diff"] == diff_summary(old, new) and ev.fields["diff"]
    assert ev.raw_fields["predicates"] == ["ResourceVersionChanged"]  # reading fields derives them all
    line = ev.to_json()
    assert '"diff":[' in line and calls == [1]  # computed once
    assert '"object"' not in line and '"old"' not in line  # local fields stay in the process
    assert trace_kinds.check_event(ev.kind, ev.key, ev.fields) == []


def test_the_design_notes_table_is_generated_from_the_declaration():
    text = (ROOT / "docs" / "design-notes.md").read_text()
    assert trace_kinds.markdown_table() in text, "regenerate it: python -m kubectl_informer.core.trace_kinds"


def test_a_derived_event_built_with_the_kinds_name_derives_too():
    obj = {"metadata": {"name": "a", "resourceVersion": "2", "labels": {"app": "web"}}, "status": {"phase": "Running"}}
    ev = DerivedTraceEvent(
        1,
        0.0,
        "store.add",
        "ns/a",
        {"resource_version": "2", "delta": "Added", "is_in_initial_list": False, "object": obj},
    )
    assert ev.field("labels") == {"app": "web"} and ev.fields["summary"] == "Running"
    assert DerivedTraceEvent(2, 0.0, "not.a.kind", None, {}).field("x", 7) == 7
