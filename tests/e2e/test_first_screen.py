"""The README's demo, `kubectl informer watch pods --demo`, in a real
terminal: every pane has something to show, none a placeholder (a resync and
a workqueue are on by default in the demo's UI); flags say otherwise. The
same process, shrunk to 80x24, falls back to tabs and answers the keys.
(The flags that turn the defaults off: tests/e2e/test_tmux.py, in the
process that SIGTERM ends.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_informer.tui.keymap import HELP_KEYS
from tests.e2e.test_tmux import DELTA_LINE, pane_title

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

TITLES = ("Deltas", "FIFO", "ResourceVersion", "Resync", "Queue", "Cache", "Inspector", "Handlers", "Explain")
PLACEHOLDERS = (
    "no ticks: resync is off",
    "watch runs no workqueue",
    "no deltas yet",
    "no handlers registered",
    "cache empty",
    "no list or watch yet",
)


def test_the_readme_demo_fills_every_pane_then_80x24_help_tab_filter_quit(terminal):
    # One process walks through the checks of both sizes: each start of the
    # UI costs more CPU than everything this test does after it.
    t = terminal(160, 45)

    def full(s: str) -> bool:
        return (
            all(pane_title(s, t) for t in TITLES)
            and "resync 5s" in s.splitlines()[0]
            and "ago" in s.split("Resync", 1)[1]
            and "busy" in s
            and "controller" in s
        )

    screen = t.wait(full, "every pane with its content, a resync tick and the workers", timeout=60)
    for text in PLACEHOLDERS:
        assert text not in screen, text
    screen = t.wait(
        lambda s: DELTA_LINE.search(s) and all(pane_title(s, p) for p in ("Deltas", "FIFO", "Cache")),
        "the grid of panes",
    )
    assert pane_title(screen, "ResourceVersion")
    assert max(len(line) for line in screen.splitlines()) > 120  # it uses the width
    # Shrinking the terminal falls back to one pane behind tabs.
    t.tmux("set-option", "-t", "ki", "window-size", "manual")
    t.tmux("resize-window", "-t", "ki", "-x", "80", "-y", "24")
    t.wait(lambda s: pane_title(s, "Deltas") and not pane_title(s, "FIFO"), "tabs after shrinking")
    help_tab_filter_quit(t)


def help_tab_filter_quit(t) -> None:
    """At 80x24: the footer, the help, tab and back, a filter, q."""
    # The footer names the keys.
    screen = t.wait(
        lambda s: (
            len(DELTA_LINE.findall(s)) >= 3
            and pane_title(s, "Deltas")
            and re.search(r"q\s+Quit", s)
            and re.search(r"\?\s+Help", s)
        ),
        "deltas and the footer",
    )
    lines = screen.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    assert "pods" in lines[0] and "DeltaFIFO" in screen

    # The help lists the keymap's own lines (short ones: long ones wrap at 80 columns).
    help_lines = [desc for _, desc in HELP_KEYS if len(desc) < 40][:3]
    t.keys("?")
    t.wait(lambda s: all(d in s for d in help_lines), "the help screen")
    t.keys("Escape")
    t.wait(lambda s: not any(d in s for d in help_lines) and pane_title(s, "Deltas"), "help closed")

    t.keys("Tab")
    t.wait(lambda s: pane_title(s, "FIFO") and not pane_title(s, "Deltas"), "the FIFO pane after tab")
    t.keys("BTab")
    screen = t.wait(lambda s: pane_title(s, "Deltas"), "back to Deltas")

    key = DELTA_LINE.search(screen).group(2)
    name = key[-5:]  # a short substring: the tab bar truncates long filters at 80 columns
    t.keys("/")
    t.wait(lambda s: "filter keys" in s, "the filter input")
    t.keys(name, "Enter")
    # The tab bar (under the two header lines) shows the filter kept.
    screen = t.wait(
        lambda s: any(f"/{name}" in line for line in s.splitlines()[:4]) and DELTA_LINE.search(s), "the filter applied"
    )
    shown = {m.group(2) for m in DELTA_LINE.finditer(screen)}
    assert shown and all(name in k for k in shown), shown

    t.keys("q")
    assert t.exit_code() == 0


# What a start pays before its first screen or its first line: a command
# that only answers (--help, version, a usage error) imports the command line
# and click, not the run's machinery; -o json does not import Textual.
MACHINERY = (
    "textual",
    "kubernetes",
    "yaml",
    "kubectl_informer.run.runner",
    "kubectl_informer.run.config",
    "kubectl_informer.kube",
    "kubectl_informer.sim",
    "kubectl_informer.cache",
    "kubectl_informer.tui",
)


def _imported(importtime: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


def _run_with_importtime(*args: str) -> subprocess.CompletedProcess:
    return _python_with_importtime("-m", "kubectl_informer", *args)


def _python_with_importtime(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, KUBECONFIG=os.devnull),
    )


@pytest.mark.parametrize("args, code", [(("version",), 0), (("--help",), 0), (("watch", "pods", "-n", "Bad_NS"), 2)])
def test_a_command_that_only_answers_imports_no_machinery(args, code):
    r = _run_with_importtime(*args)
    assert r.returncode == code, r.stderr[-2000:]
    loaded = _imported(r.stderr)
    assert "kubectl_informer.cli.main" in loaded and "click" in loaded
    assert not {m for m in loaded if m.startswith(MACHINERY)}, sorted(m for m in loaded if m.startswith(MACHINERY))


# What a run does not use at its start, so does not import: the YAML parser
# (the simulator's kubeconfig is JSON), the kubernetes client (the light one
# talks to a token-only context), the thread pool of a discovery without
# aggregated discovery, the simulator's OpenAPI, protobuf, Table and scale
# modules (asked for by kubectl only) and its controllers (rollout
# scenarios); and in the demo the discovery cache (it keeps none) and the
# UI's experiments (key x).
NOT_AT_START = (
    "yaml",
    "kubernetes",
    "concurrent.futures",
    "kubectl_informer.sim.openapi",
    "kubectl_informer.sim.protobuf",
    "kubectl_informer.sim.tables",
    "kubectl_informer.sim.scale",
    "kubectl_informer.sim.controllers",
)


def _unused(loaded: set[str], also: tuple[str, ...] = ()) -> list[str]:
    return sorted(m for m in loaded if m in NOT_AT_START + also or m.startswith(tuple(f"{x}." for x in NOT_AT_START)))


def test_headless_demo_output_imports_neither_textual_nor_what_a_start_does_not_use():
    r = _run_with_importtime("watch", "pods", "--demo", "-o", "json", "--max-events", "1")
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = _imported(r.stderr)
    assert "kubectl_informer.run.runner" in loaded and '"kind":"run.info"' in r.stdout
    assert not {m for m in loaded if m.startswith(("textual", "rich", "kubectl_informer.tui"))}
    assert "kubectl_informer.sim.server" in loaded and "kubectl_informer.kube.config" in loaded
    assert not _unused(loaded, ("kubectl_informer.kube.discovery_cache", "kubectl_informer.run.experiments")), _unused(
        loaded, ("kubectl_informer.kube.discovery_cache", "kubectl_informer.run.experiments")
    )


def test_a_run_against_the_simulator_reads_its_json_kubeconfig_without_the_yaml_parser(tmp_path):
    from kubectl_informer.sim.demo import seed
    from kubectl_informer.sim.server import SimServer

    srv = SimServer()
    srv.start()
    try:
        seed(srv.store)
        kc = srv.write_kubeconfig(str(tmp_path / "kubeconfig"))
        assert Path(kc).read_text().startswith("{")
        r = _run_with_importtime("watch", "pods", "-n", "shop", "-o", "json", "--max-events", "1", "--kubeconfig", kc)
    finally:
        srv.stop()
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = _imported(r.stderr)
    assert '"kind":"run.info"' in r.stdout and '"namespace":"shop"' in r.stdout
    assert "kubectl_informer.kube.config" in loaded and not _unused(loaded), _unused(loaded)


def test_the_live_uis_modules_import_no_yaml_parser_nor_package_metadata():
    """The UI's modules, imported as a live start imports them: the YAML
    dumper (the `y` key) and Textual's version check (read from its
    dist-info folder's name) cost nothing until used."""
    r = _python_with_importtime(
        "-c",
        "import kubectl_informer.cli.execute, kubectl_informer.tui.app,"
        " kubectl_informer.tui.strips as s;"
        "assert s.lazy_strip_caches() and s.whole_divide_uncached()",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = _imported(r.stderr)
    assert "kubectl_informer.tui.app" in loaded and "kubectl_informer.panes.objects" in loaded
    assert not {m for m in loaded if m.split(".")[0] == "yaml" or m.startswith("importlib.metadata")}, sorted(
        m for m in loaded if m.split(".")[0] == "yaml" or m.startswith("importlib.metadata")
    )
