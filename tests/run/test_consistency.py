"""ConsistencyStore: a port of kube-controller-manager v1.36's
pkg/controller/util/consistency/consistency_test.go, and apimachinery's
TestCompareResourceVersion."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubectl_informer.cache.store import Store
from kubectl_informer.core.resourceversion import InvalidResourceVersion, compare_resource_version
from kubectl_informer.run.consistency import (
    ConsistencyError,
    ConsistencyStore,
    GroupResource,
    NoopConsistencyStore,
    SwitchableConsistency,
    _OwnerRecord,
)

POD = GroupResource("", "pods")
DS = GroupResource("apps", "daemonsets")


def test_owner_record_wrote_at():
    r = _OwnerRecord("owner-uid-1")
    assert r.owner_uid == "owner-uid-1" and r.versions == {}
    r.wrote_at(POD, "5")
    assert r.versions[POD] == "5"
    r.wrote_at(POD, "10")
    assert r.versions[POD] == "10"
    r.wrote_at(POD, "8")  # lower: kept the newest
    assert r.versions[POD] == "10"
    r.wrote_at(DS, "1")
    assert r.versions == {POD: "10", DS: "1"}


def test_owner_record_is_ready():
    r = _OwnerRecord("owner-uid-1")
    pods, dss = Store(), Store()
    stores = {POD: pods, DS: dss}
    r.ensure_ready(stores)  # no writes
    r.wrote_at(POD, "10")
    r.ensure_ready(stores)  # a write, no read yet: the store reads "", skipped
    pods.bookmark("5")
    with pytest.raises(ConsistencyError) as e:
        r.ensure_ready(stores)
    assert (e.value.read_rv, e.value.wrote_rv, e.value.group_resource) == ("5", "10", POD)
    pods.bookmark("10")
    r.ensure_ready(stores)  # equal
    pods.bookmark("15")
    r.ensure_ready(stores)  # higher
    r.wrote_at(DS, "100")
    dss.bookmark("50")
    with pytest.raises(ConsistencyError):
        r.ensure_ready(stores)  # one of two behind
    dss.bookmark("100")
    r.ensure_ready(stores)


def test_new_store_is_empty():
    assert ConsistencyStore(None)._writes == {}


def test_ensure_written_record():
    store = ConsistencyStore()
    r1 = store._ensure_record("owner1", "uid-1")
    assert r1.owner_uid == "uid-1" and store._writes["owner1"] is r1
    assert store._ensure_record("owner1", "uid-1") is r1
    r3 = store._ensure_record("owner1", "uid-2")
    assert r3 is not r1 and r3.owner_uid == "uid-2" and store._writes["owner1"] is r3 and r3.versions == {}
    r1.wrote_at(POD, "10")  # the old record is detached
    assert r3.versions == {}


def test_ensure_written_record_concurrent():
    store = ConsistencyStore()
    got: list = []
    lock = threading.Lock()

    def make(uid):
        r = store._ensure_record("owner1", uid)
        with lock:
            got.append(r)

    for uid in ("uid-1", "uid-2"):
        got.clear()
        threads = [threading.Thread(target=make, args=(uid,)) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len({id(r) for r in got}) == 1 and got[0].owner_uid == uid
        assert len(store._writes) == 1 and store._writes["owner1"] is got[0]


def test_wrote_at():
    store = ConsistencyStore()
    store.wrote_at("owner1", "uid-1", POD, "10")
    record = store._record("owner1")
    assert record.owner_uid == "uid-1" and record.versions[POD] == "10"
    store.wrote_at("owner1", "uid-1", POD, "20")
    assert record.versions[POD] == "20"
    assert store.written("owner1") == {POD: "20"}


def test_clear():
    store = ConsistencyStore()
    r1 = store._ensure_record("owner1", "uid-1")
    r2 = store._ensure_record("owner2", "uid-2")
    store.clear("non-existent", "uid-1")
    assert len(store._writes) == 2
    store.clear("owner1", "uid-2")  # wrong UID
    assert store._writes["owner1"] is r1
    store.clear("owner1", "uid-1")
    assert "owner1" not in store._writes and store._writes["owner2"] is r2
    store._ensure_record("owner1", "uid-1")
    store.clear("owner1", "")  # empty UID: whatever the UID
    assert "owner1" not in store._writes and store._writes["owner2"] is r2


def test_is_ready_clears_the_record():
    pods = Store()
    store = ConsistencyStore({POD: pods})
    store.ensure_ready("owner1")  # no record
    pods.bookmark("5")
    store.wrote_at("owner1", "uid-1", POD, "10")
    with pytest.raises(ConsistencyError):
        store.ensure_ready("owner1")
    pods.bookmark("10")
    store.ensure_ready("owner1")
    pods.bookmark("15")
    store.ensure_ready("owner1")
    assert store._record("owner1") is None


def test_bad_rvs_never_block():
    pods = Store()
    store = ConsistencyStore({POD: pods})
    store.wrote_at("o", "u", POD, "10")
    pods.bookmark("not-a-number")
    store.ensure_ready("o")  # does not compare: skipped


def test_the_check_off_and_on_again():
    pods = Store()
    pods.bookmark("5")
    sw = SwitchableConsistency({POD: pods}, enabled=False)
    sw.wrote_at("o", "u", POD, "10")
    sw.ensure_ready("o")  # off: records nothing
    sw.set_enabled(True)
    sw.ensure_ready("o")  # on again: the writes made while off were not recorded
    sw.wrote_at("o", "u", POD, "10")
    with pytest.raises(ConsistencyError):
        sw.ensure_ready("o")
    assert NoopConsistencyStore().ensure_ready("o") is None


# ----- apimachinery's CompareResourceVersion -----


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("100", "200", -1),
        ("200", "100", 1),
        ("1", "1", 0),
        ("100", "100", 0),
        ("99", "100", -1),
        ("100", "99", 1),
        (
            "99999999999999999999999999999999999999999999999999",
            "100000000000000000000000000000000000000000000000000",
            -1,
        ),
        (
            "100000000000000000000000000000000000000000000000000",
            "99999999999999999999999999999999999999999999999999",
            1,
        ),
        ("12345678901234567890123456789012345678901234567890", "12345678901234567890123456789012345678901234567890", 0),
    ],
)
def test_compare_resource_version(a, b, want):
    assert compare_resource_version(a, b) == want


@pytest.mark.parametrize(
    "a,b",
    [
        ("0", "1"),
        ("0", "0"),
        ("1", "0"),
        ("0100", "100"),
        ("100", "0100"),
        ("", "100"),
        ("100", ""),
        ("100a", "100"),
        ("100", "100a"),
        ("١٢", "12"),
    ],
)
def test_compare_resource_version_refuses_malformed(a, b):
    with pytest.raises(InvalidResourceVersion):
        compare_resource_version(a, b)


@given(st.integers(1, 10**30), st.integers(1, 10**30))
def test_compare_is_integer_order(a, b):
    assert compare_resource_version(str(a), str(b)) == (a > b) - (a < b)
