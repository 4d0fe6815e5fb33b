"""Read-only, provably, and nothing secret shown.

One simulated API server (real HTTP) records every request it gets while
the real command runs against it: every profile, watch and queue, headless
outputs, recordings and their replay, and the live UI in tmux with every
key. Only GETs of discovery, lists and watches (and the Server pane's read of the
watch cache, docs/security.md) may reach it. Secret values
(``data``, ``stringData``, the last-applied annotation that repeats them) and
the bearer token must appear in no output, pane, recording or replay unless
``--show-secret-data`` asks for the values.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kubectl_informer.clock.testing import wait_for
from kubectl_informer.sim.demo import seed
from kubectl_informer.sim.server import SimServer
from kubectl_informer.tui.keymap import PANE_LETTERS
from tests.short_paths import remove, short_dir, socket_in

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

SCRIPT = Path(sys.executable).parent / "kubectl-informer"
SECRET_VALUES = (
    "c2ltLXBhc3N3b3Jk",
    "sim-password",
    "hunter2-string-data",
    "aHVudGVyMg==",
    "aHVudGVyMw==",
    "hunter2",
    "hunter3",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# The bearer token of each simulated server started here (in its kubeconfig only): never in an output.
TOKENS: list[str] = []


def command(*args: str) -> list[str]:
    base = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "kubectl_informer"]
    return base + list(args)


@contextlib.contextmanager
def churning_sim(tmp: Path):
    """A simulated API server seeded with the demo's objects and a Secret
    whose values change all along, so that every update's diff would carry
    them if anything let them through."""
    srv = SimServer().start()
    TOKENS.append(srv.token)
    seed(srv.store)
    srv.store.create(
        "secrets",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "Opaque",
            "metadata": {
                "name": "applied",
                "namespace": "default",
                "annotations": {
                    LAST_APPLIED: json.dumps({"apiVersion": "v1", "kind": "Secret", "data": {"pw": "aHVudGVyMg=="}})
                },
            },
            "data": {"pw": "aHVudGVyMg=="},
            "stringData": {"note": "hunter2-string-data"},
        },
        namespace="default",
    )
    srv.kubeconfig = srv.write_kubeconfig(str(tmp / "kubeconfig"))
    stop = threading.Event()

    def churn():
        n = 0
        while not stop.wait(0.25):
            n += 1
            srv.store.patch(
                "secrets",
                "default",
                "applied",
                {
                    "data": {"pw": ("aHVudGVyMg==", "aHVudGVyMw==")[n % 2]},
                    "stringData": {"note": f"hunter2-string-data{n % 2}"},
                },
            )

    t = threading.Thread(target=churn, daemon=True)
    t.start()
    try:
        yield srv
    finally:
        stop.set()
        t.join(5)
        srv.stop()


# The headless runs, the UI and the experiments each talk to a server of their
# own and are made in a group of their own, so that xdist runs the three at the
# same time on different workers (made in one fixture they took 30 s in a row).
HEADLESS, UI, EXPERIMENTS = (pytest.mark.xdist_group(f"read-only-{part}") for part in ("headless", "ui", "experiments"))


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    with churning_sim(tmp_path_factory.mktemp("ro")) as srv:
        yield srv


def headless_runs(kc: str, rec: Path) -> list[list[str]]:
    base = ["--kubeconfig", kc, "--duration", "2s"]
    runs = []
    for profile in ("1.32", "1.35", "1.36"):
        runs += [
            [
                "queue",
                "pods",
                "-A",
                "-o",
                "text",
                "--fail-rate",
                "0.5",
                "--resync",
                "1s",
                "--client-go",
                profile,
                *base,
            ],
            [
                "watch",
                "secrets",
                "-A",
                "-o",
                "text",
                "--resync",
                "1s",
                "--client-go",
                profile,
                "--record",
                str(rec / f"secrets-{profile}.ndjson"),
                "--debug",
                *base,
            ],
        ]
    runs += [
        ["watch", "deployments.apps", "-n", "shop", "-l", "app=cart", "-o", "json", *base],
        ["watch", "widgets", "-A", "-o", "json", "--no-watch-list", "--client-go", "1.36", *base],
        ["watch", "configmaps", "web-config", "-o", "json", "--late-handler-resync", "1s", "--resync", "2s", *base],
        ["watch", "namespaces", "-o", "text", "--field-selector", "metadata.name=shop", *base],
    ]
    return runs


def run_all(cmds: list[list[str]], env: dict) -> list[tuple[list[str], int, str, str]]:
    out = []
    for i in range(0, len(cmds), 6):  # a few at a time on two shared cores
        procs = [
            (c, subprocess.Popen(command(*c), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
            for c in cmds[i : i + 6]
        ]
        for c, p in procs:
            o, e = p.communicate(timeout=60)
            out.append((c, p.returncode, o, e))
    return out


@contextlib.contextmanager
def tmux_session(env: dict, cmd: list[str], size: tuple[int, int], shows: str):
    """``cmd`` in a detached tmux session of ``size`` (on a server of its own),
    once its screen shows ``shows``; yields (send a key and capture the screen,
    capture); quits with q."""
    env = {k: v for k, v in env.items() if k != "TMUX"}
    sock_dir = short_dir()
    sock = socket_in(sock_dir)

    def tmux(*args):
        return subprocess.run(["tmux", "-S", sock, *args], capture_output=True, text=True, timeout=20, env=env).stdout

    def capture() -> str:
        return tmux("capture-pane", "-p", "-t", "s")

    def press(key: str, pause: float = 0.1) -> str:
        tmux("send-keys", "-t", "s", key)
        time.sleep(pause)
        return capture()

    tmux("new-session", "-d", "-s", "s", "-x", str(size[0]), "-y", str(size[1]), f"{' '.join(cmd)}; sleep 30")
    try:
        deadline = time.monotonic() + 30
        while shows not in capture():
            assert time.monotonic() < deadline, f"the UI never showed {shows!r}"
            time.sleep(0.2)
        yield press, capture
        press("q", 0.5)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True, env=env)
        remove(sock_dir)


def drive_the_ui(kc: str, tmp: Path, env: dict) -> list[str]:
    """The live UI on Secrets with every key pressed; the screens seen."""
    keys = (
        [
            "?",
            "Escape",
            "/",
            "a",
            "p",
            "p",
            "l",
            "i",
            "e",
            "d",
            "Enter",
            "Escape",
            "p",
            "p",
            "Tab",
            "BTab",
            "z",
            "z",
            "j",
            "k",
            "Home",
            "End",
            "Enter",
            "BSpace",
            "Escape",
        ]
        + list(PANE_LETTERS.values())
        + [str(i) for i in range(1, 10)]
        + ["c", "Enter", "i"]
    )
    cmd = command("watch", "secrets", "-A", "--kubeconfig", kc)
    with tmux_session(env, cmd, (160, 50), "default/applied") as (press, capture):
        screens = [capture()] + [press(key) for key in keys]
        time.sleep(0.5)
        screens.append(capture())
    return screens


# Every client-side experiment (x then its key; n and h take their default at
# enter), toggles twice; then the --demo-only ones, which must refuse here.
EXPERIMENT_KEYS = ["x", "w", "x", "f", "x", "f", "x", "p", "x", "p", "x", "n", "Enter", "x", "h", "Enter", "x", "r"]
SIM_ONLY_KEYS = ["x", "g", "c", "d", "b", "Escape"]


MENU = "experiments · on this run"
# What the first press of a key shows (asserted below from the screens seen).
SHOWS = {"w": "experiment: close-watch", "g": "not available here"}


def _relisted_at_empty_rv(log) -> bool:
    """A LIST asking resourceVersion "" (the forget-rv experiment's relist)."""
    return any(
        m == "GET" and "watch=" not in p and ("resourceVersion=&" in p or p.endswith("resourceVersion="))
        for m, p, _s in list(log)
    )


def drive_the_experiments(sim, tmp: Path, env: dict) -> list[str]:
    """The live UI in queue mode with every experiment's key; the screens seen.
    Waits (bounded) for the forget-rv relist to reach the server."""
    cmd = command("queue", "pods", "-n", "default", "--work-time", "0s", "--kubeconfig", sim.kubeconfig)
    with tmux_session(env, cmd, (80, 24), "synced") as (press, capture):
        time.sleep(1.2)  # an open watch older than a second: closing it is not a "very short watch"
        screens = []
        for key in EXPERIMENT_KEYS + SIM_ONLY_KEYS:
            if key == "x":
                # The menu must be closed before x and open after it: a key that
                # comes before the menu is up goes to the main screen (r would
                # select the RV pane, and forget-rv never run).
                assert wait_for(lambda: MENU not in capture(), 20, 0.05), "the experiments menu never closed"
                press(key, 0.0)
                assert wait_for(lambda: MENU in capture(), 20, 0.05), "the experiments menu never opened"
            if key in SHOWS:
                # Its toast, waited for: at 80x24 later toasts push it off the
                # screen, so a capture a fixed moment after the key can miss it.
                press(key, 0.0)
                assert wait_for(lambda key=key: SHOWS[key] in capture(), 20, 0.05), (
                    f"{key!r} never showed {SHOWS[key]!r}"
                )
                screens.append(capture())
            else:
                screens.append(capture() if key == "x" else press(key, 0.15))
        deadline = time.monotonic() + 15
        while not _relisted_at_empty_rv(sim.request_log) and time.monotonic() < deadline:
            time.sleep(0.1)
        screens.append(capture())
    return screens


ENV = dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1")


@pytest.fixture(scope="module")
def runs(sim, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ro-runs")
    rec = tmp / "rec"
    rec.mkdir()
    sim.request_log.clear()
    results = run_all(headless_runs(sim.kubeconfig, rec), ENV)
    replays = run_all(
        [["replay", str(f), "-o", ("json", "text")[i % 2]] for i, f in enumerate(sorted(rec.iterdir()))], ENV
    )
    return {
        "results": results,
        "replays": replays,
        "recordings": [f.read_text() for f in rec.iterdir()],
        "log": list(sim.request_log),
    }


@pytest.fixture(scope="module")
def ui_run(tmp_path_factory):
    """The live UI with every key, on a server of its own: (screens, requests)."""
    tmp = tmp_path_factory.mktemp("ro-ui")
    with churning_sim(tmp) as srv:
        screens = drive_the_ui(srv.kubeconfig, tmp, ENV)
        return screens, list(srv.request_log)


@pytest.fixture(scope="module")
def experiments_run(tmp_path_factory):
    """Every experiment's key in the live UI, on a server of its own: (screens, requests)."""
    tmp = tmp_path_factory.mktemp("ro-experiments")
    with churning_sim(tmp) as srv:
        screens = drive_the_experiments(srv, tmp, ENV)
        return screens, list(srv.request_log)


def _is_read(method: str, target: str) -> bool:
    """GET of discovery, or a list/watch of a collection (never one object by name)."""
    if method != "GET":
        return False
    parts = [p for p in urlsplit(target).path.split("/") if p]
    if not parts or parts[0] == "version" or parts[0] == "openapi":
        return True
    if parts in (["metrics"], ["debug", "informer", "watchcache"]):
        return True  # the Server pane: /metrics on a cluster, the simulator's own report here
    if parts[0] == "api":
        rest = parts[2:] if len(parts) >= 2 else []
    elif parts[0] == "apis":
        rest = parts[3:] if len(parts) >= 3 else []
    else:
        return False
    # [] discovery; [res] cluster-wide list/watch; [namespaces, ns, res] a namespace's.
    return len(rest) == 0 or len(rest) == 1 or (len(rest) == 3 and rest[0] == "namespaces")


@HEADLESS
def test_every_run_succeeded(runs):
    for cmd, rc, _out, err in runs["results"] + runs["replays"]:
        assert rc == 0, (cmd, err)
        assert "Traceback" not in err, (cmd, err)


@HEADLESS
def test_only_get_list_watch_and_discovery_reach_the_server(runs):
    log = runs["log"]
    # The runs did talk to it: each sends at least aggregated discovery (2),
    # a list and a watch (no probe before them any more).
    assert len(log) > 20 and sum(p == "/apis" for _m, p, _s in log) >= 4
    bad = [(m, p) for m, p, _status in log if not _is_read(m, p)]
    assert bad == []
    assert any("watch=" in p for _m, p, _s in log) and any("limit=" in p for _m, p, _s in log)


def assert_no_secret_value(texts: list[str]) -> None:
    for text in texts:
        for value in SECRET_VALUES + tuple(TOKENS):
            assert value not in text, value


@HEADLESS
def test_secret_values_and_the_token_appear_nowhere(runs):
    assert_no_secret_value([out + err for _c, _rc, out, err in runs["results"] + runs["replays"]] + runs["recordings"])
    # The secrets were there to leak: their keys (not values) reached the outputs.
    joined = "\n".join(out for _c, _rc, out, _e in runs["results"])
    assert "default/applied" in joined


@UI
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")
def test_the_ui_with_every_key_showed_the_secrets_redacted(ui_run):
    screens, log = ui_run
    assert any("default/applied" in s for s in screens)
    assert any("Inspector" in s for s in screens) and any("Help" in s or "help" in s for s in screens)
    assert_no_secret_value(screens)
    assert any("watch=" in p for _m, p, _s in log)
    assert [(m, p) for m, p, _s in log if not _is_read(m, p)] == []


@EXPERIMENTS
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")
def test_client_side_experiments_send_only_gets_and_sim_ones_refuse(experiments_run):
    screens, log = experiments_run
    assert [(m, p) for m, p, _s in log if not _is_read(m, p)] == []
    # They did reach the server: the closed and the forgotten watches were
    # opened again, and forget-rv's relist asked for resourceVersion "".
    assert sum("watch=" in p for _m, p, _s in log) >= 2
    assert _relisted_at_empty_rv(log)
    assert any("experiment: close-watch" in s for s in screens)
    assert any("asked 3s, got" in s for s in screens)
    assert any("not available here" in s for s in screens)  # the --demo-only ones, on a "real" cluster


def test_show_secret_data_shows_them(tmp_path):
    # A server of its own (this test is in no group: it runs beside the others).
    # It waits for a value to be printed, then ends the run (SIGTERM; the exit
    # code of a signal is tests/security/test_signals_exit_codes.py's).
    with churning_sim(tmp_path) as srv:
        p = subprocess.Popen(
            command("watch", "secrets", "-o", "text", "--show-secret-data", "--kubeconfig", srv.kubeconfig),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, KUBECONFIG=os.devnull, PYTHONUNBUFFERED="1"),
        )
        seen = []
        try:
            for line in p.stdout:
                seen.append(line)
                if "data.pw aHVudGVyM" in line:
                    break
        finally:
            p.terminate()
            out, err = p.communicate(timeout=30)
    assert any("data.pw aHVudGVyM" in line for line in seen), (seen[-5:], err)
    assert (p.returncode, err) == (143, "")
    assert srv.token not in "".join(seen) + out + err
