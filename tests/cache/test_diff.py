from kubectl_informer.cache.diff import diff_summary, summarize
from kubectl_informer.cache.testing.fake_controller_source import make_object
from kubectl_informer.cache.keys import DeletedFinalStateUnknown


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
    dep = {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 3},
           "status": {"readyReplicas": 2, "replicas": 3}}
    assert summarize(dep) == "ready 2/3"
    dep["status"] = {}
    assert summarize(dep) == "ready 0/3"
    assert summarize({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}) == ""
    assert summarize("ns/key") == ""


def test_diff_scalar_change_and_labels():
    old = pod("Pending", "1", labels={"app": "web", "tier": "a"})
    new = pod("Running", "2", labels={"app": "web", "team": "x"})
    assert diff_summary(old, new) == ["labels.team +", "labels.tier -", "status.phase Pending→Running"]


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
    assert diff_summary(old, new) == ["spec.containers changed"]
    many_old = pod(labels={f"k{i}": "a" for i in range(6)})
    many_new = pod(labels={f"k{i}": "b" for i in range(6)})
    out = diff_summary(many_old, many_new, limit=4)
    assert out == ["labels.k0 a→b", "labels.k1 a→b", "labels.k2 a→b", "labels.k3 a→b", "…"]
    assert len(diff_summary(many_old, many_new, limit=6)) == 6


def test_diff_long_values_are_shortened():
    old = pod(spec={"x": "a" * 100})
    new = pod(spec={"x": "b" * 100})
    (line,) = diff_summary(old, new)
    assert line.startswith("spec.x ") and len(line) < 70


def test_timestamps_sort_after_the_change_that_caused_them():
    old = {"metadata": {"name": "p", "resourceVersion": "1"},
           "status": {"conditions": [{"type": "Ready", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
                      "containerStatuses": [{"restartCount": 0}]}}
    new = {"metadata": {"name": "p", "resourceVersion": "2"},
           "status": {"conditions": [{"type": "Ready", "lastTransitionTime": "2026-01-01T00:00:05Z"}],
                      "containerStatuses": [{"restartCount": 1}]}}
    assert diff_summary(old, new) == [
        "status.containerStatuses[0].restartCount 0→1",
        "status.conditions[0].lastTransitionTime 2026-01-01T00:00:00Z→2026-01-01T00:00:05Z",
    ]
