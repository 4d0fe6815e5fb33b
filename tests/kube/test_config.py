"""Kubeconfig loading as kubectl does it, through the kubernetes client."""

import os
import stat
import sys

import pytest
import yaml

from kubectl_informer.cache.listwatch import ListOptions
from kubectl_informer.kube import config as kconfig
from kubectl_informer.kube.config import load_kube
from kubectl_informer.kube.discovery import Resource
from kubectl_informer.kube.errors import KubeConfigError
from kubectl_informer.kube.listwatch import KubeListerWatcher

from .fake_apiserver import kubeconfig

PODS = Resource("", "v1", "pods", "Pod", True)


@pytest.fixture(autouse=True)
def no_ambient_config(monkeypatch, tmp_path):
    # Never pick up the machine's ~/.kube/config or a real pod's service account.
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(kconfig, "SERVICE_ACCOUNT_DIR", str(tmp_path / "no-sa"))


def write(path, doc):
    path.write_text(yaml.safe_dump(doc) if not isinstance(doc, str) else doc)
    return str(path)


def auth_header(fake, target):
    fake.routes["/api/v1/pods"] = {
        "kind": "PodList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "1"},
        "items": [],
    }
    KubeListerWatcher(target.api_client, PODS).list(ListOptions())
    return fake.requests_to("/api/v1/pods")[-1].headers.get("authorization")


def test_explicit_file_context_namespace_and_token(fake, tmp_path):
    path = write(tmp_path / "kc", kubeconfig(fake.url, namespace="team-a", token="s3cret"))
    t = load_kube(kubeconfig=path)
    assert (t.context, t.namespace, t.server) == ("fake", "team-a", fake.url)
    assert auth_header(fake, t) == "Bearer s3cret"


def test_namespace_defaults_to_default(fake, tmp_path):
    t = load_kube(kubeconfig=write(tmp_path / "kc", kubeconfig(fake.url)))
    assert t.namespace == "default"
    assert auth_header(fake, t) is None


def test_kubeconfig_env_merges_files_first_wins(fake, monkeypatch, tmp_path):
    a = kubeconfig(fake.url, context="a", namespace="from-a")
    b = kubeconfig("http://127.0.0.1:1", context="b", namespace="from-b")
    b["current-context"] = "b"
    # "a" again in the second file, pointing elsewhere: the first file wins.
    b["contexts"].append({"name": "a", "context": {"cluster": "b-cluster", "namespace": "shadowed"}})
    missing = str(tmp_path / "missing")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([write(tmp_path / "a", a), missing, write(tmp_path / "b", b)]))
    ta = load_kube(context="a")
    assert (ta.namespace, ta.server) == ("from-a", fake.url)
    tb = load_kube(context="b")
    assert (tb.namespace, tb.server) == ("from-b", "http://127.0.0.1:1")
    # Both files set current-context: kubectl takes the first file's.
    assert load_kube().context == "a"


def test_default_location(fake, tmp_path):
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    write(home / ".kube" / "config", kubeconfig(fake.url, context="home-ctx"))
    assert load_kube().context == "home-ctx"


def test_unknown_context(fake, tmp_path):
    path = write(tmp_path / "kc", kubeconfig(fake.url))
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=path, context="foo")
    assert str(e.value) == 'context "foo" does not exist'


@pytest.mark.parametrize(
    "content, expected",
    [
        ("clusters: [\n  - name: x\n  bad", "invalid YAML"),
        ("", "file is empty"),
        ("- just\n- a list\n", "not a kubeconfig"),
        ("clusters: 5\ncontexts: []\n", "cannot unmarshal number into field clusters of type []struct"),
    ],
)
def test_invalid_files_are_one_line(tmp_path, content, expected):
    path = write(tmp_path / "kc", content)
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=path)
    msg = str(e.value)
    assert msg.startswith(f'error loading config file "{path}"') and expected in msg and "\n" not in msg


def test_a_json_kubeconfig_reads_as_its_yaml_twin(fake, tmp_path):
    """JSON is YAML: ``kubectl config view -o json`` (and the simulator) write
    one, read without the YAML parser; a quoted "false" stays no bool, and a
    flow mapping that is YAML but not JSON is read as YAML."""
    import json

    doc = kubeconfig(fake.url, namespace="team-a", token="s3cret")
    as_json = load_kube(kubeconfig=write(tmp_path / "kc.json", json.dumps(doc, indent=2)))
    as_yaml = load_kube(kubeconfig=write(tmp_path / "kc.yaml", doc))
    assert (as_json.context, as_json.namespace, as_json.server) == (as_yaml.context, as_yaml.namespace, as_yaml.server)
    assert auth_header(fake, as_json) == "Bearer s3cret"
    flow = write(tmp_path / "flow", "{" + yaml.safe_dump(doc, default_flow_style=True)[1:].replace('"', ""))
    assert load_kube(kubeconfig=flow).namespace == "team-a"
    doc["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = "false"
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=write(tmp_path / "quoted.json", json.dumps(doc)))
    assert "insecure-skip-tls-verify" in str(e.value)
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=write(tmp_path / "broken.json", '{"clusters": [\n  {"name": "x",\n  bad'))
    assert str(e.value).startswith(f'error loading config file "{tmp_path / "broken.json"}": invalid YAML')


def test_missing_file_and_no_config(tmp_path, monkeypatch):
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig="/nonexistent/kc")
    assert str(e.value) == "stat /nonexistent/kc: no such file or directory"
    with pytest.raises(KubeConfigError, match="no configuration has been provided") as e:
        load_kube()
    assert str(e.value).endswith("(no cluster at hand? add --demo for the simulated one)")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "nope"))
    with pytest.raises(KubeConfigError, match="no kubeconfig file found in KUBECONFIG"):
        load_kube()


def test_broken_references(fake, tmp_path):
    doc = kubeconfig(fake.url)
    doc["contexts"][0]["context"]["cluster"] = "gone"
    with pytest.raises(KubeConfigError) as e:
        load_kube(kubeconfig=write(tmp_path / "kc", doc))
    assert str(e.value) == 'context "fake": cluster "gone" does not exist'
    doc = kubeconfig(fake.url)
    del doc["current-context"]
    with pytest.raises(KubeConfigError, match="current-context is not set"):
        load_kube(kubeconfig=write(tmp_path / "kc2", doc))


def test_exec_plugin_token(fake, tmp_path):
    # A real exec credential plugin, run by the kubernetes client as kubectl would.
    plugin = tmp_path / "cred-plugin"
    plugin.write_text(
        f"#!{sys.executable}\nimport json\n"
        "print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', "
        "'kind': 'ExecCredential', 'status': {'token': 'from-exec'}}))\n"
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    t = load_kube(kubeconfig=write(tmp_path / "kc", kubeconfig(fake.url, exec_cmd=[str(plugin)])))
    assert auth_header(fake, t) == "Bearer from-exec"


def test_in_cluster(monkeypatch, tmp_path):
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("pod-token")
    (sa / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    (sa / "namespace").write_text("kube-system\n")
    monkeypatch.setattr(kconfig, "SERVICE_ACCOUNT_DIR", str(sa))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    t = load_kube()
    assert (t.context, t.namespace, t.server) == ("in-cluster", "kube-system", "https://10.96.0.1:443")
    cfg = t.api_client.configuration
    assert cfg.auth_settings()["BearerToken"]["value"].lower() == "bearer pod-token"
    assert cfg.ssl_ca_cert == str(sa / "ca.crt")
