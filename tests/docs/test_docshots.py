"""The screenshots docs/ shows: each one referenced exists and is in the
registry, each registered one is referenced by a page that quotes its command,
and the tool renders a shot (the app's own SVG, from a run on the simulator)."""

from __future__ import annotations

import contextlib
import gc
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tools.docshots.registry import SHOTS, by_name
from tools.docshots.render import ShotError, options_for

from .doc_commands import DOCS, ROOT

REF = re.compile(r"\]\((?:\./)?screenshots/([\w.-]+)\.svg\)")


def _pages() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(DOCS.glob("*.md"))}


def _references() -> dict[str, list[str]]:
    refs: dict[str, list[str]] = {}
    for page, text in _pages().items():
        for name in REF.findall(text):
            refs.setdefault(name, []).append(page)
    return refs


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def test_every_referenced_screenshot_exists_and_is_registered():
    refs = _references()
    assert refs, "no page references a screenshot"
    registered = {s.name for s in SHOTS}
    missing = [
        f"{n} ({', '.join(pages)})" for n, pages in refs.items() if not (DOCS / "screenshots" / f"{n}.svg").exists()
    ]
    unregistered = [n for n in refs if n not in registered]
    assert not missing, f"referenced but not rendered (python -m tools.docshots NAME): {missing}"
    assert not unregistered, f"referenced but not in docshots/registry.py: {unregistered}"


def test_every_shot_is_referenced_by_a_page_quoting_its_command():
    refs, pages = _references(), _pages()
    for shot in SHOTS:
        assert shot.name in refs, f"{shot.name}: no page shows it"
        quoting = [p for p in refs[shot.name] if _squeeze(shot.command) in _squeeze(pages[p])]
        assert quoting, f"{shot.name}: {refs[shot.name]} show it but do not quote `{shot.command}`"


QUOTE = re.compile(r"```[a-z]*\n(.*?)```|`(kubectl[ -]informer [^`]+)`", re.S)


def test_a_screenshot_follows_the_command_it_was_taken_of():
    """The last command quoted before a screenshot (a block, or inline) is the
    one the shot ran: under another command, the picture would answer for it."""
    misplaced = []
    for page, text in _pages().items():
        for ref in REF.finditer(text):
            quoted = [m.group(1) or m.group(2) for m in QUOTE.finditer(text, 0, ref.start())]
            last = _squeeze(quoted[-1]) if quoted else ""
            if _squeeze(by_name(ref.group(1)).command) not in last:
                misplaced.append(f"{page}: {ref.group(1)} comes after `{last[:90]}`")
    assert misplaced == []


def test_no_stale_screenshot_files():
    on_disk = {p.stem for p in (DOCS / "screenshots").glob("*.svg")}
    assert on_disk == {s.name for s in SHOTS}


def test_shot_names_are_unique_and_found():
    names = [s.name for s in SHOTS]
    assert len(names) == len(set(names))
    assert by_name("help").name == "help"
    with pytest.raises(KeyError):
        by_name("no-such-shot")


def test_a_shot_takes_the_options_the_cli_would_run():
    opts, pane = options_for(("queue", "pods", "-A", "--demo", "burst", "--workers", "1", "--work-time", "500ms"))
    assert (opts.mode, opts.demo, opts.queue.workers, opts.queue.work_time, pane) == ("queue", "burst", 1, 0.5, "queue")
    opts, pane = options_for(("watch", "pods", "--demo", "quiet", "--resync", "4s", "--late-handler-resync", "3s"))
    assert (opts.resync, opts.late_handler_resync, pane) == (4.0, 3.0, "deltas")


@pytest.mark.parametrize(
    "argv, says",
    [
        (("watch", "pods", "--demo", "-o", "json"), "needs the live UI"),
        (("watch", "pods"), "add --demo"),
        (("version",), "does not run an informer"),
    ],
)
def test_a_shot_refuses_what_it_cannot_show(argv, says):
    with pytest.raises(ShotError, match=says):
        options_for(argv)


def test_a_shot_can_start_its_scenario_at_a_later_tick():
    from kubectl_informer.sim.demo import start_demo
    from tools.docshots.render import _scenario_from

    with _scenario_from(16):
        demo = start_demo("quiet")  # its first step comes 10 s in: none has run when we look
    try:
        assert demo.runner.ticks == 16
        demo.runner.step()
        assert demo.runner.ticks == 17
    finally:
        demo.stop()
    with start_demo("quiet") as again:  # only the shot's run starts later
        assert again.runner.ticks == 0
    assert [s.name for s in SHOTS if s.from_tick] == ["server-small-window", "server-too-large", "server-cache-reinit"]


def _render(root, *names: str) -> str:
    """``python -m tools.docshots --root ROOT [NAME...]``, the docs' command."""
    r = subprocess.run(
        [sys.executable, "-m", "tools.docshots", "--root", str(root), *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.mark.e2e
def test_the_tool_renders_a_shot(tmp_path):
    """The help shot, from the docs' command."""
    out = _render(tmp_path, "help")
    assert re.search(r"^ok  help \(", out, re.M), out
    svg = (tmp_path / "docs" / "screenshots" / "help.svg").read_text().replace("&#160;", " ")
    assert svg.startswith("<svg") and ">kubectl informer watch pods --demo quiet<" in svg  # the title
    # The help screen is up, over the informer on the simulated cluster (its header at 80
    # columns keeps the machinery and the demo's 5s resync; the context is cut first).
    assert "kubectl informer: keys" in svg and "this help (esc closes)" in svg and "resync 5s" in svg


# The shots rendered in this process (the tests below): headless, the
# screen's compositor redrew the changed panes after each of the app's 15
# frames a second while a shot waited for its point, for no one to see (a
# third of these tests' CPU). Here it draws once a second; the app still
# drains and redraws its panes every frame, the tool's pauses (before its
# keys and the screenshot) update the screen as before, and the screenshot
# renders the whole screen.
SCREEN_UPDATE_PERIOD = 1.0


@pytest.fixture
def screen_updates_once_a_second(monkeypatch):
    import textual.screen

    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", SCREEN_UPDATE_PERIOD)


@pytest.mark.e2e
def test_a_shot_that_never_sees_its_condition_fails_in_one_line(tmp_path, monkeypatch, screen_updates_once_a_second):
    from tools.docshots import registry
    from tools.docshots.conditions import seen

    never = registry.Shot("never", ("watch", "pods", "--demo", "quiet"), until=seen("store.delete"), timeout=1.0)
    monkeypatch.setattr(registry, "SHOTS", [*registry.SHOTS, never])
    from tools.docshots.render import render

    with pytest.raises(ShotError, match=r"never: waited 1s for 1× store.delete"):
        render(never, tmp_path)
    assert not (tmp_path / never.path).exists()


@pytest.mark.e2e
def test_a_run_that_missed_its_point_is_followed_by_a_fresh_one(tmp_path, monkeypatch, screen_updates_once_a_second):
    """``missed`` holding before ``until`` ends the run and starts another (a
    new run, its own demo), up to ``runs``; then the shot fails in one line."""
    from tools.docshots import render as render_mod
    from tools.docshots.conditions import seen
    from tools.docshots.registry import Shot

    shot = Shot(
        "missing",
        ("watch", "pods", "--demo", "quiet"),
        until=seen("store.delete"),
        missed=seen("informer.synced"),
        runs=2,
        timeout=30.0,
    )
    runs = []
    real = render_mod._run_once
    monkeypatch.setattr(render_mod, "_run_once", lambda *a: runs.append(a) or real(*a))
    with pytest.raises(
        ShotError,
        match=r"^missing: 2 runs missed the point "
        r"\(1× informer.synced before 1× store.delete\)$",
    ):
        render_mod.render(shot, tmp_path)
    assert len(runs) == 2
    assert not (tmp_path / shot.path).exists()


# The shots in a few groups, one test a group, so the workers share them
# (all in one render were the suite's longest pole). A group's shots render
# side by side, each in a thread of the worker's own process, as the tool's
# --in-process child renders one: a shot mostly waits for its scenario's
# point (a relist every 4 s, a restore at 8 s), a tenth of a core at most, so
# a group takes about its longest shot (one test a shot summed every wait).
# The docs' command itself, its processes and its "ok" line, is
# test_the_tool_renders_a_shot's; two Python start-ups a shot (the tool, then
# its child importing Textual) were most of this test's CPU.
SHOT_GROUPS = 4
RENDERED = [s.name for s in SHOTS if s.name != "help"]


def _group(i: int) -> list[str]:
    """Every SHOT_GROUPS-th shot: the registry keeps the slow Server-pane shots together, this spreads them."""
    return RENDERED[i::SHOT_GROUPS]


@contextlib.contextmanager
def _process_settings_kept():
    """A run tunes the process's GC and switch interval and restores what it
    found: side by side, one may find another's; put the first back after all."""
    threshold, switch = gc.get_threshold(), sys.getswitchinterval()
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        sys.setswitchinterval(switch)


def _render_one(name: str, root) -> str | None:
    """Render ``name`` under ``root``; what is wrong with it (one line), or None."""
    from tools.docshots.render import render

    try:
        written = render(by_name(name), root)
    except ShotError as e:
        return str(e)
    if written != root / "docs" / "screenshots" / f"{name}.svg":
        return f"{name}: written to {written}"
    if [p.stem for p in (root / "docs" / "screenshots").glob("*.svg")] != [name]:
        return f"{name}: other files beside it"
    svg = written.read_text().replace("&#160;", " ")
    if not (svg.startswith("<svg") and f">{by_name(name).command}<" in svg):  # the title: the docs' command
        return f"{name}: not an SVG titled with its command"
    return None


@pytest.mark.e2e
@pytest.mark.long_wait
@pytest.mark.timeout(300)  # a shot waits for its condition on a loaded machine
@pytest.mark.parametrize("group", range(SHOT_GROUPS))
def test_every_shot_renders(group, tmp_path, screen_updates_once_a_second):
    # Every shot still reaches its condition on the current code.
    names = _group(group)
    with _process_settings_kept(), ThreadPoolExecutor(len(names)) as pool:
        problems = [p for p in pool.map(lambda n: _render_one(n, tmp_path / n), names) if p]
    assert not problems, "\n".join(problems)
