# Ports cases of client-go tools/cache store_test.go (TestMetaNamespaceKeyFunc-style) and
# controller_test.go's DeletionHandlingMetaNamespaceKeyFunc behaviour.
import pytest

from kubectl_informer.cache.keys import (
    DeletedFinalStateUnknown,
    deletion_handling_meta_namespace_key_func,
    meta_namespace_key_func,
    resource_version,
    split_meta_namespace_key,
)


def pod(name, ns=None, rv="1"):
    meta = {"name": name, "resourceVersion": rv}
    if ns:
        meta["namespace"] = ns
    return {"metadata": meta}


def test_namespaced_and_cluster_scoped_keys():
    assert meta_namespace_key_func(pod("web-1", "default")) == "default/web-1"
    assert meta_namespace_key_func(pod("node-a")) == "node-a"
    assert meta_namespace_key_func("explicit/key") == "explicit/key"


def test_object_without_meta_is_an_error():
    with pytest.raises(KeyError):
        meta_namespace_key_func({"spec": {}})


def test_tombstone_key():
    tomb = DeletedFinalStateUnknown("default/web-1", pod("web-1", "default"))
    assert deletion_handling_meta_namespace_key_func(tomb) == "default/web-1"
    assert deletion_handling_meta_namespace_key_func(pod("a", "b")) == "b/a"
    assert resource_version(tomb) == "1"


@pytest.mark.parametrize("key,want", [("a", ("", "a")), ("ns/a", ("ns", "a")), ("/a", ("", "a"))])
def test_split_key(key, want):
    assert split_meta_namespace_key(key) == want


def test_split_key_rejects_extra_slashes():
    with pytest.raises(ValueError):
        split_meta_namespace_key("a/b/c")
