"""resourceVersion, paging and compaction rules of LIST, through real HTTP.

The rules are kube-apiserver's (staging/src/k8s.io/apiserver/pkg/storage:
cacher and etcd3 store) as client-go's reflector relies on them."""

from tests.sim.conftest import pod

PODS = "/api/v1/namespaces/default/pods"


def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


def seed(client, n, ns="default"):
    for i in range(n):
        client.request("POST", f"/api/v1/namespaces/{ns}/pods", pod(f"p{i:02d}", ns=ns))


def test_list_latest_reports_current_rv(client, sim):
    seed(client, 3)
    status, lst = client.get(PODS)
    assert status == 200 and lst["kind"] == "PodList" and lst["apiVersion"] == "v1"
    assert names(lst) == ["p00", "p01", "p02"]
    assert lst["metadata"]["resourceVersion"] == str(sim.store.current_rv())


def test_list_all_namespaces_sorted_by_namespace_then_name(client):
    seed(client, 2, "other")
    seed(client, 2, "default")
    _, lst = client.get("/api/v1/pods")
    keys = [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in lst["items"]]
    assert keys == sorted(keys) and len(keys) == 4


def test_list_rv0_from_cache_ignores_limit(client):
    seed(client, 5)
    _, lst = client.get(PODS, resourceVersion="0", limit="2")
    assert len(lst["items"]) == 5 and "continue" not in lst["metadata"]


def test_list_future_rv_is_too_large_504(client, sim):
    sim.store.too_large_wait = 0.05  # kube-apiserver waits 3 s (tests/sim/test_cacher.py times it)
    future = sim.store.current_rv() + 10
    status, st = client.get(PODS, resourceVersion=str(future))
    assert status == 504 and st["reason"] == "Timeout"
    assert st["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
    assert "Too large resource version" in st["message"]


def test_too_large_waits_for_the_rv(sim, client):
    # As the watch cache does, a request for an RV about to exist waits for it.
    import threading

    sim.store.too_large_wait = 5.0
    rv = sim.store.current_rv()
    t = threading.Timer(0.05, lambda: sim.store.create("pods", pod("late")))
    t.start()
    status, lst = client.get(PODS, resourceVersion=str(rv + 1), resourceVersionMatch="NotOlderThan")
    t.join()
    assert status == 200 and names(lst) == ["late"]


def test_exact_list_rebuilds_past_state(client, sim):
    seed(client, 3)
    rv = sim.store.current_rv()
    client.request("DELETE", PODS + "/p00")
    client.request("POST", PODS, pod("new"))
    client.request("PATCH", PODS + "/p01", {"metadata": {"labels": {"x": "1"}}}, ctype="application/merge-patch+json")
    _, lst = client.get(PODS, resourceVersion=str(rv), resourceVersionMatch="Exact")
    assert names(lst) == ["p00", "p01", "p02"] and lst["metadata"]["resourceVersion"] == str(rv)
    assert "labels" not in lst["items"][1]["metadata"]
    _, now = client.get(PODS, resourceVersion=str(rv), resourceVersionMatch="NotOlderThan")
    assert names(now) == ["new", "p01", "p02"]
    assert now["metadata"]["resourceVersion"] == str(sim.store.current_rv())


def test_exact_list_after_compaction_is_expired(client, sim):
    seed(client, 2)
    rv = sim.store.current_rv()
    client.request("POST", PODS, pod("x"))
    sim.store.compact()
    status, st = client.get(PODS, resourceVersion=str(rv), resourceVersionMatch="Exact")
    assert status == 410 and st["reason"] == "Expired"
    assert st["message"] == "The resourceVersion for the provided list is too old."


def test_legacy_rv_with_limit_is_exact(client, sim):
    # resourceVersion=N without a match, paged: served exactly at N (etcd3 store's rule).
    seed(client, 3)
    rv = sim.store.current_rv()
    client.request("DELETE", PODS + "/p00")
    _, lst = client.get(PODS, resourceVersion=str(rv), limit="10")
    assert names(lst) == ["p00", "p01", "p02"]
    _, lst = client.get(PODS, resourceVersion=str(rv))  # unpaged: not older than
    assert names(lst) == ["p01", "p02"]


def test_match_validation(client):
    status, st = client.get(PODS, resourceVersionMatch="NotOlderThan")
    assert status == 422 and "resourceVersionMatch is forbidden unless resourceVersion is provided" in st["message"]
    status, st = client.get(PODS, resourceVersion="0", resourceVersionMatch="Exact")
    assert status == 422 and 'forbidden for resourceVersion "0"' in st["message"]
    status, st = client.get(PODS, resourceVersion="1", resourceVersionMatch="Sometime")
    assert status == 422
    status, st = client.get(PODS, resourceVersion="abc")
    assert status == 400


def test_paging_follows_continue_and_counts_remaining(client):
    seed(client, 5)
    _, p1 = client.get(PODS, limit="2")
    assert names(p1) == ["p00", "p01"] and p1["metadata"]["remainingItemCount"] == 3
    _, p2 = client.get(PODS, limit="2", **{"continue": p1["metadata"]["continue"]})
    assert names(p2) == ["p02", "p03"]
    _, p3 = client.get(PODS, limit="2", **{"continue": p2["metadata"]["continue"]})
    assert names(p3) == ["p04"] and "continue" not in p3["metadata"]
    assert p1["metadata"]["resourceVersion"] == p2["metadata"]["resourceVersion"] == p3["metadata"]["resourceVersion"]


def test_pages_are_a_consistent_snapshot(client):
    seed(client, 4)
    _, p1 = client.get(PODS, limit="2")
    client.request("DELETE", PODS + "/p03")
    client.request("POST", PODS, pod("p02a"))
    _, p2 = client.get(PODS, limit="5", **{"continue": p1["metadata"]["continue"]})
    assert names(p2) == ["p02", "p03"]


def test_continue_token_expires_after_compaction(client, sim):
    seed(client, 4)
    _, p1 = client.get(PODS, limit="2")
    client.request("POST", PODS, pod("late"))
    sim.store.compact()
    status, st = client.get(PODS, limit="2", **{"continue": p1["metadata"]["continue"]})
    assert status == 410 and st["reason"] == "Expired"
    assert st["message"].startswith("The provided continue parameter is too old to display a consistent list")
    # The Status carries a token that continues at the latest state, after the last key served.
    _, rest = client.get(PODS, limit="10", **{"continue": st["metadata"]["continue"]})
    assert names(rest) == ["p02", "p03"]


def test_continue_with_rv_or_garbage_is_bad_request(client):
    seed(client, 3)
    _, p1 = client.get(PODS, limit="1")
    status, st = client.get(PODS, limit="1", resourceVersion="5", **{"continue": p1["metadata"]["continue"]})
    assert status == 400 and st["message"] == "specifying resource version is not allowed when using continue"
    status, st = client.get(PODS, limit="1", **{"continue": "!!notatoken"})
    assert status == 400
    assert st["message"] == "invalid continue token: continue key is not valid: illegal base64 data at input byte 0"
    # A bad token is refused before the resourceVersion beside it (storage.ValidateListOptions), as on the lab.
    status, st = client.get(PODS, limit="1", resourceVersion="5", **{"continue": "garbage"})
    assert (status, st["message"]) == (
        400,
        "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value",
    )


def test_paging_with_selector_skips_non_matching(client):
    for i in range(6):
        client.request("POST", PODS, pod(f"p{i}", labels={"even": str(i % 2 == 0).lower()}))
    _, p1 = client.get(PODS, limit="2", labelSelector="even=true")
    assert names(p1) == ["p0", "p2"] and "remainingItemCount" not in p1["metadata"]
    _, p2 = client.get(PODS, limit="2", labelSelector="even=true", **{"continue": p1["metadata"]["continue"]})
    assert names(p2) == ["p4"]


def test_history_limit_compacts_automatically(sim, client):
    sim.store.history_limit = 3
    for st in sim.store._states.values():
        st.history_limit = 3
    seed(client, 2)
    rv = sim.store.current_rv()
    for i in range(4):
        client.request("POST", PODS, pod(f"z{i}"))
    assert client.get(PODS, resourceVersion=str(rv), resourceVersionMatch="Exact")[0] == 410


def test_bulk_load_lists_whole(sim, client):
    # Correctness only: timings are in docs/simulator.md (a shared 2-core machine makes them noisy).
    from kubectl_informer.sim.objects import many_pods

    # 2,000: four pages of 500, enough to show the load lists whole and pages.
    assert sim.store.bulk_load("pods", many_pods(2_000)) == 2_000
    status, lst = client.get(PODS)
    assert status == 200 and len(lst["items"]) == 2_000
    assert len({i["metadata"]["uid"] for i in lst["items"]}) == 2_000
    _, page = client.get(PODS, limit="500")
    assert len(page["items"]) == 500 and page["metadata"]["remainingItemCount"] == 1_500
