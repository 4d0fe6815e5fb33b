from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_informer.cache.keys import DeletedFinalStateUnknown
from kubectl_informer.cache.testing.fake_controller_source import make_object
from kubectl_informer.core.diff import NOISE, Change, diff_changes, diff_summary, summarize


def pod(phase="Pending", rv="1", labels=None, **kw):
    o = make_object("web-1", phase=phase, labels=labels, **kw)
    o["metadata"]["resourceVersion"] = rv
    return o


def test_summarize_pod_phase_and_terminating():
    assert summarize(pod("Running")) == "Running"
    p = pod("Running")
    p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert summarize(p) == "Terminating"
    assert summarize(DeletedFinalStateUnknown("default/web-1", pod("Failed"))) == "Failed"
    assert summarize(DeletedFinalStateUnknown("default/web-1", None)) == ""


def test_summarize_workloads_and_others():
    dep = {
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"replicas": 3},
        "status": {"readyReplicas": 2, "replicas": 3},
    }
    assert summarize(dep) == "ready 2/3"
    dep["status"] = {}
    assert summarize(dep) == "ready 0/3"
    assert summarize({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}) == ""
    assert summarize("ns/key") == ""


def test_diff_scalar_change_and_labels():
    old = pod("Pending", "1", labels={"app": "web", "tier": "a"})
    new = pod("Running", "2", labels={"app": "web", "team": "x"})
    # status first (what happened), then metadata
    assert diff_summary(old, new) == ["status.phase Pending→Running", "labels.team +", "labels.tier -"]


def test_diff_ignores_rv_generation_managed_fields():
    old = pod("Running", "1")
    new = pod("Running", "9")
    new["metadata"]["generation"] = 4
    new["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    new["status"]["observedGeneration"] = 4
    assert diff_summary(old, new) == []
    assert diff_summary(old, old) == []


def test_diff_nested_lists_and_limit():
    old = pod(spec={"containers": [{"name": "c", "image": "nginx:1"}]})
    new = pod(spec={"containers": [{"name": "c", "image": "nginx:2"}]})
    assert diff_summary(old, new) == ["spec.containers[0].image nginx:1→nginx:2"]
    new["spec"]["containers"].append({"name": "d"})
    assert diff_summary(old, new) == ["spec.containers[0].image nginx:1→nginx:2", "spec.containers[1] +"]
    assert diff_summary(new, old) == ["spec.containers[0].image nginx:2→nginx:1", "spec.containers[1] -"]
    many_old = pod(labels={f"k{i}": "a" for i in range(6)})
    many_new = pod(labels={f"k{i}": "b" for i in range(6)})
    # All of them by default: the full diff, not the first four.
    assert diff_summary(many_old, many_new) == [f"labels.k{i} a→b" for i in range(6)]
    out = diff_summary(many_old, many_new, limit=4)
    assert out == ["labels.k0 a→b", "labels.k1 a→b", "labels.k2 a→b", "labels.k3 a→b", "…"]
    assert len(diff_summary(many_old, many_new, limit=6)) == 6


def test_diff_long_values_are_shortened():
    old = pod(spec={"x": "a" * 100})
    new = pod(spec={"x": "b" * 100})
    (line,) = diff_summary(old, new)
    assert line.startswith("spec.x ") and len(line) < 70


def test_timestamps_sort_after_the_change_that_caused_them():
    old = {
        "metadata": {"name": "p", "resourceVersion": "1"},
        "status": {
            "conditions": [{"type": "Ready", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
            "containerStatuses": [{"restartCount": 0}],
        },
    }
    new = {
        "metadata": {"name": "p", "resourceVersion": "2"},
        "status": {
            "conditions": [{"type": "Ready", "lastTransitionTime": "2026-01-01T00:00:05Z"}],
            "containerStatuses": [{"restartCount": 1}],
        },
    }
    assert diff_summary(old, new) == [
        "status.containerStatuses[0].restartCount 0→1",
        "status.conditions[0].lastTransitionTime 2026-01-01T00:00:00Z→2026-01-01T00:00:05Z",
    ]


# --- the full diff: every path, in reading order ------------------------------------


def test_full_diff_orders_status_spec_other_metadata_then_noise():
    old = {
        "metadata": {
            "name": "p",
            "resourceVersion": "1",
            "labels": {"a": "1"},
            "generation": 1,
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {"replicas": 1},
        "data": {"k": "v"},
        "status": {"restartCount": 0, "observedGeneration": 1, "startedAt": "t0"},
    }
    new = {
        "metadata": {
            "name": "p",
            "resourceVersion": "2",
            "labels": {"a": "2"},
            "generation": 2,
            "managedFields": [{"manager": "kubelet"}],
        },
        "spec": {"replicas": 2},
        "data": {"k": "w"},
        "status": {"restartCount": 1, "observedGeneration": 2, "startedAt": "t1"},
    }
    lines = [c.line() for c in diff_changes(old, new)]
    assert lines == [
        "status.restartCount 0→1",
        "status.startedAt t0→t1",
        "spec.replicas 1→2",
        "data.k v→w",
        "labels.a 1→2",
        "metadata.generation 1→2",
        "metadata.managedFields[0].manager kubectl→kubelet",
        "metadata.resourceVersion 1→2",
        "status.observedGeneration 1→2",
    ]
    # The summary is the same list without the noise.
    assert diff_summary(old, new) == lines[:5]
    assert [c.line() for c in diff_changes(old, new, noise=False)] == lines[:5]


def test_change_keeps_the_values_and_tombstones_unwrap():
    old = pod("Pending")
    new = pod("Running")
    (c,) = diff_changes(old, new, noise=False)
    assert c == Change("status.phase", "~", "Pending", "Running", 0)
    assert diff_changes(DeletedFinalStateUnknown("k", old), new, noise=False) == [c]
    assert diff_changes(old, None) == [] and diff_changes(old, old) == []


_keys = st.sampled_from(["status", "spec", "metadata", "data", "a", "b", "resourceVersion", "labels"])
_leaf = st.one_of(st.integers(-3, 3), st.sampled_from(["x", "y", ""]), st.booleans(), st.none())
_tree = st.recursive(
    _leaf, lambda kids: st.one_of(st.lists(kids, max_size=3), st.dictionaries(_keys, kids, max_size=4)), max_leaves=12
)
_objs = st.dictionaries(_keys, _tree, max_size=5)


def _get(obj, path):
    """The value at a Change path ("a.b[1].c"), or a sentinel when absent."""
    import re

    cur = obj
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            i = int(part[1:-1])
            if not isinstance(cur, list) or i >= len(cur):
                return _ABSENT
            cur = cur[i]
        else:
            if not isinstance(cur, dict) or part not in cur:
                return _ABSENT
            cur = cur[part]
    return cur


_ABSENT = object()


def _apply(obj, changes):
    """Rebuild ``new`` from ``old`` with the changes: proves none is missing."""
    import copy
    import re

    out = copy.deepcopy(obj)
    removals = []
    for c in changes:
        parts = re.findall(r"[^.\[\]]+|\[\d+\]", c.path)
        cur = out
        for part in parts[:-1]:
            cur = cur[int(part[1:-1])] if part.startswith("[") else cur[part]
        last = parts[-1]
        key = int(last[1:-1]) if last.startswith("[") else last
        if c.op == "-":
            removals.append((cur, key))
        elif isinstance(cur, list) and key == len(cur):
            cur.append(c.new)
        else:
            cur[key] = c.new
    # List removals from the end, so indexes stay right.
    for cur, key in sorted(removals, key=lambda r: -r[1] if isinstance(r[1], int) else 0):
        del cur[key]
    return out


@settings(max_examples=200, deadline=None)
@given(_objs, _objs)
def test_full_diff_is_complete_ordered_and_true(old, new):
    changes = diff_changes(old, new)
    # Complete: applying every change to old gives new.
    assert _apply(old, changes) == new
    # True: each change's values are what the objects hold at its path.
    for c in changes:
        assert _get(old, c.path) is _ABSENT if c.op == "+" else _get(old, c.path) == c.old
        assert _get(new, c.path) is _ABSENT if c.op == "-" else _get(new, c.path) == c.new
    # Ordered: status, spec, other, metadata, noise, never going back.
    ranks = [c.rank for c in changes]
    assert ranks == sorted(ranks)
    assert all(c.rank == 0 for c in changes if c.path.startswith("status") and c.path not in NOISE)
    # No path twice; equal objects have no diff.
    assert len({c.path for c in changes}) == len(changes)
    assert (changes == []) == (old == new)
