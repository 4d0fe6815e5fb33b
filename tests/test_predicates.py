"""controller-runtime's update predicates (pkg/predicate) on plain objects."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as hs

from kubectl_informer.core.predicates import (
    ANNOTATION_CHANGED,
    GENERATION_CHANGED,
    LABEL_CHANGED,
    PREDICATES,
    RESOURCE_VERSION_CHANGED,
    annotation_changed,
    generation_changed,
    is_resync,
    label_changed,
    resource_version_changed,
    update_predicates,
)
from kubectl_informer.tui.predicate_marker import predicate_cells, predicate_marker


def pod(rv="1", generation=None, labels=None, annotations=None, phase="Running"):
    meta = {"name": "web", "namespace": "default", "resourceVersion": rv}
    if generation is not None:
        meta["generation"] = generation
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {"metadata": meta, "status": {"phase": phase}}


def test_a_status_change_passes_only_resource_version_changed():
    old, new = pod("1", 1, {"app": "web"}), pod("2", 1, {"app": "web"}, phase="Failed")
    assert update_predicates(old, new) == [RESOURCE_VERSION_CHANGED]
    assert not is_resync(old, new)


def test_a_spec_change_bumps_generation():
    assert update_predicates(pod("1", 1), pod("2", 2)) == [GENERATION_CHANGED, RESOURCE_VERSION_CHANGED]


def test_a_resync_passes_none_and_is_a_resync():
    old = pod("7", 3, {"app": "web"}, {"a": "1"})
    assert update_predicates(old, copy.deepcopy(old)) == []
    assert is_resync(old, copy.deepcopy(old))


def test_labels_and_annotations_are_compared_as_maps():
    assert update_predicates(pod("1", labels={"a": "1"}), pod("2", labels={"a": "2"})) == [
        RESOURCE_VERSION_CHANGED,
        LABEL_CHANGED,
    ]
    assert update_predicates(pod("1", annotations={"x": "1"}), pod("2", annotations={"x": "1", "y": "2"})) == [
        RESOURCE_VERSION_CHANGED,
        ANNOTATION_CHANGED,
    ]
    # Key order is not a change.
    assert not label_changed(pod(labels={"a": "1", "b": "2"}), pod(labels={"b": "2", "a": "1"}))


def test_absent_and_empty_maps_differ_as_go_deep_equal_says():
    # reflect.DeepEqual(nil map, empty map) is false: an unstructured object's
    # GetLabels is nil when absent and empty when "labels": {}.
    assert label_changed(pod(), pod(labels={}))
    assert annotation_changed(pod(annotations={}), pod())
    assert not label_changed(pod(), pod())


def test_absent_generation_reads_as_zero():
    assert not generation_changed(pod(), pod(generation=0))
    assert generation_changed(pod(), pod(generation=1))


def test_no_old_or_no_new_object_passes_nothing():
    for old, new in ((None, pod()), (pod(), None), (None, None)):
        assert update_predicates(old, new) == []
        assert not is_resync(old, new)
    assert not resource_version_changed(pod("1"), "not an object")


def test_an_object_without_metadata_has_empty_fields():
    assert not resource_version_changed({}, {"metadata": {"resourceVersion": ""}})
    assert is_resync({}, {})


def test_the_marker_shows_letters_or_resync():
    assert predicate_cells([GENERATION_CHANGED, LABEL_CHANGED]) == "G·L·"
    assert predicate_cells(PREDICATES) == "GRLA"
    from kubectl_informer.core.trace import TraceEvent
    from kubectl_informer.core.trace_kinds import STORE_UPDATE

    def update(**f):
        return TraceEvent(1, 0.0, STORE_UPDATE, "default/web", f)

    f = {"resource_version": "2", "old_resource_version": "1", "predicates": [RESOURCE_VERSION_CHANGED]}
    assert predicate_marker(update(**f)).plain == "·R·· "
    assert predicate_marker(update(**{**f, "old_resource_version": "2", "predicates": []})).plain == "resync "
    assert predicate_marker(update(resource_version="2", old_resource_version="1")).plain == ""


labels = hs.none() | hs.dictionaries(hs.sampled_from("abc"), hs.sampled_from("xy"), max_size=3)
objects = hs.builds(
    pod, rv=hs.sampled_from(["", "1", "2"]), generation=hs.none() | hs.integers(0, 3), labels=labels, annotations=labels
)


@given(objects, objects)
def test_each_predicate_is_its_field_compared(old, new):
    om, nm = old["metadata"], new["metadata"]
    passing = update_predicates(old, new)
    assert (GENERATION_CHANGED in passing) == (om.get("generation", 0) != nm.get("generation", 0))
    assert (RESOURCE_VERSION_CHANGED in passing) == (om["resourceVersion"] != nm["resourceVersion"])
    assert (LABEL_CHANGED in passing) == (om.get("labels") != nm.get("labels"))
    assert (ANNOTATION_CHANGED in passing) == (om.get("annotations") != nm.get("annotations"))
    # ResourceVersionChanged is exactly "not a resync".
    assert resource_version_changed(old, new) == (not is_resync(old, new))
    assert passing == [p for p in PREDICATES if p in passing]


@given(objects)
def test_an_object_against_itself_passes_nothing(obj):
    assert update_predicates(obj, copy.deepcopy(obj)) == [] and is_resync(obj, obj)


def test_deltas_rows_and_inspector_lines_carry_the_marker():
    from kubectl_informer.core.trace import DerivedTraceEvent, TraceEvent
    from kubectl_informer.core.trace_kinds import STORE_UPDATE
    from kubectl_informer.panes.deltas import DeltaRow
    from kubectl_informer.tui.deltas import format_row
    from kubectl_informer.tui.inspector import describe

    old, new = pod("1", 1, {"app": "web"}), pod("2", 1, {"app": "api"})
    # As the informer emits it: derived when a reader draws the row.
    ev = DerivedTraceEvent(
        1,
        0.0,
        STORE_UPDATE,
        "default/web",
        {
            "resource_version": "2",
            "delta": "Updated",
            "is_in_initial_list": False,
            "old_resource_version": "1",
            "object": new,
            "old": old,
        },
    )
    assert "rv=2 ·RL· Running" in format_row(DeltaRow(ev), 0.0, 12, 100).plain
    assert "rv=2 ·RL· Running" in describe(ev).plain
    sync = TraceEvent.build(
        2,
        1.0,
        STORE_UPDATE,
        "default/web",
        resource_version="2",
        old_resource_version="2",
        delta="Sync",
        summary="Running",
        predicates=[],
    )
    assert "rv=2 resync Running" in format_row(DeltaRow(sync), 0.0, 12, 100).plain
    # Recorded before predicates existed: no marker at all.
    old_rec = TraceEvent.build(
        3,
        1.0,
        STORE_UPDATE,
        "default/web",
        resource_version="3",
        old_resource_version="2",
        delta="Updated",
        summary="Running",
    )
    assert "rv=3 Running" in format_row(DeltaRow(old_rec), 0.0, 12, 100).plain
