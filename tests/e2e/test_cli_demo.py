"""The real command, headless, against the in-process simulated cluster
(--demo: real HTTP on 127.0.0.1 through the kubeconfig it writes)."""

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from tests.security.in_process import run_in_process

pytestmark = pytest.mark.e2e

SCRIPT = Path(sys.executable).parent / "kubectl-informer"


def start(*args):
    cmd = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    env = dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        cmd + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1
    )
    # A reader thread, so lines already buffered are never stuck behind select().
    proc.lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            proc.lines.put(line)
        proc.lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return proc


def read_until(proc, predicate, timeout=30.0):
    """Lines as they arrive until ``predicate(lines)``; a run that ends first fails."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while not predicate(lines):
        left = deadline - time.monotonic()
        if left <= 0:
            proc.kill()
            pytest.fail(f"timed out; got {len(lines)} lines, last: {lines[-5:]}; stderr: {proc.stderr.read()}")
        try:
            line = proc.lines.get(timeout=min(left, 0.5))
        except queue.Empty:
            continue
        if line is None:
            proc.wait(5)
            pytest.fail(f"ended early (rc={proc.returncode}): {lines[-5:]} stderr: {proc.stderr.read()}")
        lines.append(line.rstrip("\n"))
    return lines


def done(proc, timeout=30):
    """Wait for a run that ends by itself: (stdout, stderr)."""
    proc.wait(timeout)
    return rest_of_output(proc), proc.stderr.read()


def rest_of_output(proc) -> str:
    out = []
    while True:
        line = proc.lines.get(timeout=10)
        if line is None:
            return "".join(out)
        out.append(line)


def finish(proc, sig=signal.SIGTERM, timeout=15):
    proc.send_signal(sig)
    try:
        rc = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("did not stop on signal")
    return rc, rest_of_output(proc), proc.stderr.read()


def test_text_shows_the_initial_list_then_live_updates_with_diffs():
    p = start("watch", "pods", "--demo", "-o", "text")
    lines = read_until(
        p, lambda ls: any(line.startswith("Updated ") and "(" in line and "[initial list]" not in line for line in ls)
    )
    initial = [line for line in lines if line.endswith("[initial list]")]
    assert initial, lines[:5]
    for line in lines:
        word, key, rv = line.split()[:3]
        assert word in ("Added", "Updated", "Deleted", "Replaced", "Sync"), line
        assert key.startswith("default/") and rv.startswith("rv="), line
    rc, _, err = finish(p)  # SIGTERM: a clean stop, no traceback, kubectl's 143
    assert rc == 143 and err == ""


def test_json_is_an_ndjson_trace_of_the_real_pipeline():
    p = start("watch", "pods", "--demo", "-o", "json")

    def live_update(line):
        return '"store.update"' in line and orjson.loads(line)["fields"].get("is_in_initial_list") is False

    lines = read_until(
        p, lambda ls: any('"watch.event"' in line for line in ls) and any(live_update(line) for line in ls)
    )
    events = [orjson.loads(line) for line in lines]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    kinds = [e["kind"] for e in events]
    assert kinds.index("list.start") < kinds.index("list.done") < kinds.index("watch.start")
    assert "informer.synced" in kinds and "fifo.pop" in kinds
    start_ev = next(e for e in events if e["kind"] == "informer.start")
    assert start_ev["fields"]["fifo"] == "DeltaFIFO"
    rc, _, err = finish(p)
    assert rc == 143 and err == ""


def test_a_closed_pipe_ends_the_run_quietly():
    cmd = str(SCRIPT) if SCRIPT.exists() else f"{sys.executable} -m kubectl_informer"
    r = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {cmd} watch pods --demo -o json | head -n 5"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, KUBECONFIG=os.devnull),
    )
    assert r.returncode == 0 and r.stderr == ""
    assert len(r.stdout.splitlines()) == 5


def test_client_go_136_streams_the_initial_list_into_an_atomic_real_fifo():
    p = start("watch", "pods", "--demo", "--client-go", "1.36", "-o", "json", "--max-events", "400")
    lines = read_until(p, lambda ls: any('"informer.synced"' in line for line in ls))
    events = [orjson.loads(line) for line in lines]
    start_ev = next(e for e in events if e["kind"] == "informer.start")
    assert start_ev["fields"]["fifo"] == "RealFIFO (atomic)" and start_ev["fields"]["watch_list"] is True
    assert any(e["kind"] == "list.start" and e["fields"].get("watch_list") for e in events)
    rc, _, err = finish(p, signal.SIGINT)  # Ctrl-C
    assert rc == 130 and err == ""


def test_queue_text_shows_workers_failing_and_requeueing():
    p = start("queue", "--demo", "-o", "text", "--fail-rate", "0.5", "--work-time", "1ms", "--workers", "3")
    lines = read_until(
        p,
        lambda ls: (
            any(line.startswith("Requeue ") for line in ls)
            and any(line.startswith("Worked ") and " ok " in line for line in ls)
            and any(line.startswith("Worked ") and " error " in line for line in ls)
        ),
    )
    assert {line.split()[2] for line in lines if line.startswith("Worked ")} <= {"worker=1", "worker=2", "worker=3"}
    rc, _, err = finish(p)
    assert rc == 143 and err == ""


def test_duration_and_max_events_end_a_run_by_themselves():
    # In-process (tests/security/in_process.py): the limits are the run's code; that the
    # real process ends with 0 on them is tests/security/test_signals_exit_codes'.
    r = run_in_process("watch", "pods", "--demo", "-o", "text", "--max-events", "3")
    assert r.returncode == 0 and r.stderr == ""
    assert len(r.stdout.splitlines()) == 3
    # Long enough for the demo's start-up on a loaded machine (1500ms was
    # not: "--duration passed before the API server answered", exit 1).
    t0 = time.monotonic()
    r = run_in_process("watch", "pods", "--demo", "-o", "json", "--duration", "3s")
    assert r.returncode == 0 and r.stderr == "" and r.stdout
    assert time.monotonic() - t0 < 20


def test_unknown_resource_on_the_demo_cluster_suggests_names():
    r = run_in_process("watch", "podz", "--demo", "-o", "text")
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "pods" in lines[0], r.stderr


def test_unknown_scenario_is_one_line():
    r = run_in_process("watch", "pods", "--demo", "nosuch", "-o", "text")
    assert r.returncode == 2  # a bad value is a usage error, as kubectl's
    assert r.stderr.startswith("error: invalid value for '--demo': unknown scenario \"nosuch\" (known: ")
    assert len(r.stderr.splitlines()) == 1


RBAC_MESSAGE = 'pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "default"'


@pytest.mark.parametrize("verb", ["list", "watch"])
def test_rbac_403_is_caught_by_the_preflight(tmp_path, verb):
    """A 403 on list or on watch ends the run before the UI starts, with the server's message."""
    from click.testing import CliRunner

    from kubectl_informer.cli.main import cli
    from kubectl_informer.sim.server import SimServer

    message = RBAC_MESSAGE.replace("cannot list", f"cannot {verb}")
    with SimServer() as srv:
        kc = srv.write_kubeconfig(str(tmp_path / "kubeconfig"))
        srv.faults.fail_next(403, verb=verb, resource="pods", message=message)
        t0 = time.monotonic()
        r = CliRunner().invoke(cli, ["watch", "pods", "-o", "text", "--kubeconfig", kc])
        elapsed = time.monotonic() - t0
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [f"error: {message}"]
    assert r.stdout == ""
    assert elapsed < 10


def test_the_preflight_watch_does_not_wait_for_events():
    """The probe relies on a watch answering its status before any event: on a
    quiet cluster, opening a 30 s watch returns long before it would time out."""
    from kubectl_informer.cache.listwatch import ListOptions
    from kubectl_informer.run.config import RunConfig
    from kubectl_informer.run.runner import Run

    run = Run(RunConfig.from_flags(demo="quiet"))
    try:
        run.prepare()
        t0 = time.monotonic()
        w = run.lw.watch(ListOptions(resource_version=None, timeout_seconds=30))
        opened = time.monotonic() - t0
        w.stop()
    finally:
        run.stop()
    assert opened < 10


def test_sim_serves_kubectl_and_the_plugin_side_by_side(tmp_path):
    kc = tmp_path / "sim.kubeconfig"
    sim = start("sim", "--write-kubeconfig", str(kc), "--scenario", "quiet")
    try:
        read_until(sim, lambda ls: any(line.startswith("Press Ctrl-C") for line in ls))
        got = subprocess.run(
            ["kubectl", "--kubeconfig", str(kc), "get", "pods", "-n", "default", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert got.returncode == 0, got.stderr
        pods = {line.split("/", 1)[1] for line in got.stdout.split()}
        assert pods
        watch = start("watch", "pods", "--kubeconfig", str(kc), "-o", "text", "--max-events", str(len(pods)))
        out, err = done(watch)
        assert watch.returncode == 0 and err == ""
        # The informer's initial list is what kubectl lists.
        assert {line.split()[1].split("/", 1)[1] for line in out.splitlines()} == pods
    finally:
        rc, out, err = finish(sim, signal.SIGINT)
    assert rc == 130 and "Simulated API server stopped." in out and err == ""


def test_sim_bad_input_is_one_line():
    r = run_in_process("sim", "--scenario", "nosuch")
    assert r.returncode == 2 and r.stderr.startswith(
        "error: invalid value for '--scenario': unknown scenario \"nosuch\""
    )
    assert len(r.stderr.splitlines()) == 1
    r = run_in_process("sim", "--list-scenarios")
    assert r.returncode == 0 and "steady" in r.stdout and "quiet" in r.stdout


def test_late_handler_shows_the_3s_asked_4s_got_rule():
    # client-go: a handler added after start with a period below the check period is raised to it.
    proc = start("watch", "pods", "--demo", "quiet", "-o", "json", "--resync", "4s", "--late-handler-resync", "3s")
    # Until the late handler is registered, then stopped (not a fixed --duration).
    lines = read_until(
        proc, lambda lines: any('"late-handler"' in line and '"handler.register"' in line for line in lines)
    )
    finish(proc)
    regs = {e["fields"]["listener"]: e["fields"] for e in map(orjson.loads, lines) if e["kind"] == "handler.register"}
    assert regs["handler-1"]["requested"] == 4.0 and regs["handler-1"]["effective"] == 4.0
    late = regs["late-handler"]
    assert (late["requested"], late["effective"], late["check_period"]) == (3.0, 4.0, 4.0)
    assert "already started" in late["reason"]


def test_an_empty_namespace_syncs_and_text_says_no_resources_once(tmp_path):
    """The informer syncs on an empty list (client-go's HasSynced) for every
    profile, and -o text says so as kubectl get does, once, on stderr."""
    # Three start-ups at once: 4 s, as 2 s passed before the demo answered on a loaded machine.
    runs = {
        profile: start(
            "watch",
            "pods",
            "-n",
            "nothing-here",
            "--demo",
            "quiet",
            "--client-go",
            profile,
            "-o",
            "text",
            "--duration",
            "4s",
            "--record",
            str(tmp_path / f"{profile}.ndjson"),
        )
        for profile in ("1.32", "1.35", "1.36")
    }
    for profile, p in runs.items():
        out, err = done(p)
        assert out == "" and err == "No resources found in nothing-here namespace.\n" and p.returncode == 0
        recorded = [orjson.loads(line) for line in (tmp_path / f"{profile}.ndjson").read_text().splitlines()]
        synced = [e for e in recorded if e["kind"] == "informer.synced"]
        assert len(synced) == 1 and synced[0]["fields"]["items"] == 0, profile


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL])
def test_a_demo_leaves_no_temp_directory_on_any_signal(tmp_path, sig):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    env = dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1", TMPDIR=str(tmp))
    p = subprocess.Popen(
        cmd + ["watch", "pods", "--demo", "-o", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        for line in p.stdout:  # running: the informer has synced
            if '"informer.synced"' in line:
                break
        p.send_signal(sig)
        p.communicate(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == (-signal.SIGKILL if sig == signal.SIGKILL else 128 + sig), p.returncode
    assert [f.name for f in tmp.iterdir() if f.name.startswith("kubectl-informer-demo-")] == []
