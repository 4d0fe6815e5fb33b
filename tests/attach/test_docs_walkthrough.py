"""docs/attach.md's walkthrough runs as written: its marked ``sh`` blocks,
in one bash, through the real kubectl (the plugin found on PATH). Only the
port and the kubeconfig path are swapped for free ones. The live-screen
command is not in it: test_tmux_attach.py runs that screen."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ports import free_port

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        shutil.which("kubectl") is None or shutil.which("curl") is None, reason="needs kubectl and curl"
    ),
]

ROOT = Path(__file__).resolve().parents[2]


def walkthrough() -> str:
    text = (ROOT / "docs" / "attach.md").read_text()
    blocks = re.findall(r"<!-- walkthrough -->\n```sh\n(.*?)```", text, re.S)
    assert len(blocks) == 4
    return "".join(blocks)


def test_the_walkthrough_runs_as_written(tmp_path):
    port = free_port()
    manifest = tmp_path / "attach-controller.yaml"
    manifest.write_text((ROOT / "docs/examples/attach-controller.yaml").read_text().replace("9100", str(port)))
    script = walkthrough().replace("9100", str(port))
    script = script.replace("docs/examples/attach-controller.yaml", str(manifest))
    # Not in the docs: a failing step must not leave the background jobs holding our pipes.
    script = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    env.pop("KUBECONFIG", None)
    env["TMPDIR"] = str(tmp_path)  # mktemp -d: the kubeconfig's directory, under the test's
    r = subprocess.run(["bash", "-e", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=90, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert 'workqueue_depth{name="controller"}' in out
    assert out.count("--- http://127.0.0.1:") == 3 and "queue controller: depth" in out
    assert "pod/my-controller-0 created" in out and "deployment.apps/my-controller created" in out
    assert out.count("--- pod/my-controller-0 :") == 2
    assert '"target": "pod/my-controller-0 of deploy/my-controller' in out
    assert "controller controller: reconciles" in out
