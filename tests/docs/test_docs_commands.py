"""Every command docs/ quotes runs as written (see doc_commands.py for what
counts as one and how a page marks one that cannot run here).

Each runs through bash, so ``kubectl informer ...`` goes through the real
kubectl to the plugin on PATH. The environment gives it a cluster: a
``kubectl informer sim`` started for the test, in ``$KUBECONFIG``, so a
command without ``--demo`` runs against the simulated cluster. Only ``/tmp/``
and ``$XDG_RUNTIME_DIR/`` paths (to a directory of the block's own) and
``127.0.0.1:91NN`` ports (to free ones) are swapped.

How long each may take, as the command says:
- the live UI (watch/queue/replay without ``-o``) runs in tmux at 80x24 until
  it has drawn its footer, then until its header says ``● synced`` (a moment
  at most), then ``q``: it must have drawn without ``error:`` and exit 0;
- a headless command with ``--duration D`` (D up to 20s), ``--max-events`` or
  ``--count N`` must end by itself with exit 0; one that is meant to run on
  (``sim``, ``get -w``, ``--duration 10m``) must still be running without an
  ``error:`` after a few seconds, and is left running, as in another
  terminal, until its block is done (the block's next line starts once it
  has printed, as one waits for a server's first lines before using it);
  then SIGTERM must end it;
- a block that backgrounds with ``&`` runs as one bash script, bounded.
A live UI quoted again, word for word, runs once (where it first appears),
as inline commands do: it reads no file and the plugin writes nothing, so a
second run of the same words shows nothing the first did not.
The units of a page (or part of one) are a test, so xdist's workers run
the pages in parallel.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.short_paths import remove, short_dir, socket_in

from .doc_commands import DOCS, WRITES, Command, all_commands, unmarked_command_blocks

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.tmux,
    pytest.mark.skipif(
        shutil.which("kubectl") is None or shutil.which("tmux") is None, reason="needs kubectl and tmux"
    ),
]

SETTLE = 5.0  # a command still running after this is one that runs on
FIRST_OUTPUT_GRACE = 0.5  # a run-on command that has printed: this long more for an early error
UI_DRAWN = 20.0  # the live UI's footer must be drawn within this
UI_LINGER = 1.0  # then at most this long more, until its header says synced
UI_SYNCED = "● synced"
MAX_BOUNDED = 20.0  # --duration up to this must end by itself
SLACK = 12.0  # start-up on a loaded machine
SCRIPT_LIMIT = 45.0
# A block that backgrounds a job (one bash script): its lines bound it (the
# metrics block: --duration 30s, --count 8), this only catches a hang. Beside
# the other pages under two busy loops (load 26) that block took over 45 s;
# alone at load 20, 14 s: its two Python start-ups wait for a core.
BLOCK_LIMIT = 90.0
TUI_SUBCOMMANDS = {"watch", "queue", "replay", "attach"}
# A page's units run this many at a time (the pages themselves on xdist's workers):
# more, and on two busy cores a unit's processes wait for CPU past their limits.
PAGE_UNITS_AT_ONCE = 4
PART_UNITS = 6
SMALL_PAGE = 8.0


def _seconds(value: str) -> float:
    total = 0.0
    for n, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", value):
        total += float(n) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[unit]
    return total


def is_live_ui(cmd: str) -> bool:
    m = re.search(r"kubectl[ -]informer (\w+)", cmd)
    if not m or m.group(1) not in TUI_SUBCOMMANDS or "|" in cmd or ">" in cmd:
        return False
    return not re.search(r"(?:^|\s)(?:-o|--output)[ =]?(?:json|text)\b|\s(?:-h|--help)\b", cmd)


def bound(cmd: str) -> float | None:
    """Seconds a headless command takes by its own flags, or None if it runs on."""
    m = re.search(r"--duration[ =](\S+)", cmd)
    if m:
        d = _seconds(m.group(1))
        return d if d <= MAX_BOUNDED else None
    if re.search(r"\breplay\b.*--speed[ =](?!0\b)", cmd):
        return None  # plays in recorded time
    m = re.search(r"--count[ =](\d+)", cmd)
    if m:
        return float(m.group(1)) * 1.2
    if re.search(r"--max-events\b|--list-scenarios\b|\s(?:-h|--help)\b", cmd):
        return 0.0
    if re.search(r"kubectl[ -]informer (?:watch|queue|attach|sim)\b|\bget\b.*\s(?:-w|--watch)\b", cmd):
        return None
    return 0.0


class Runner:
    def __init__(self, tmp: Path, env: dict[str, str]):
        self.tmp, self.env = tmp, env

    def swap(self, text: str, ports: dict[str, str], unit_dir: Path) -> str:
        text = text.replace("/tmp/", f"{unit_dir}/tmp/").replace("$XDG_RUNTIME_DIR/", f"{unit_dir}/tmp/")
        return re.sub(
            r"127\.0\.0\.1:(91\d\d)\b", lambda m: "127.0.0.1:" + ports.setdefault(m.group(1), str(free_port())), text
        )

    def run_unit(self, cmds: list[Command]) -> list[str]:
        """Failures (one line each) of one block or inline command."""
        unit_dir = self.tmp / re.sub(r"\W+", "-", cmds[0].unit)
        (unit_dir / "tmp").mkdir(parents=True, exist_ok=True)
        ports: dict[str, str] = {}
        if any(c.text.endswith("&") for c in cmds):
            return self._script(cmds, unit_dir, ports)
        failures, running = [], []
        done = 0
        for step in _steps(cmds):
            texts = [self.swap(c.text, ports, unit_dir) for c in step]
            with ThreadPoolExecutor(len(step)) as pool:
                for fs in pool.map(lambda ct: self._one(*ct, unit_dir, running), zip(step, texts, strict=True)):
                    failures += fs
            done += len(step)
            if done == len(cmds) or cmds[done].block != step[-1].block:  # what runs on ends with its block
                for r in running:
                    failures += self._stop(*r)
                running.clear()
        return failures

    def _one(self, c: Command, text: str, cwd: Path, running: list) -> list[str]:
        try:
            return self._ui(c, text, cwd) if is_live_ui(text) else self._headless(c, text, cwd, running)
        except Exception as e:  # noqa: BLE001 - reported as this command's failure
            return [f"{c.where}: {c.text}: {type(e).__name__}: {e}"]

    def _headless(self, c: Command, text: str, cwd: Path, running: list) -> list[str]:
        """Start it; the next line of its block starts when it ends if it ends
        by itself, else after SETTLE at most (as in another terminal; one that
        runs on, once it has printed): whether it ended as it should is checked
        when the block ends, in ``_stop``."""
        out = cwd / f"out-{c.line}.txt"
        with out.open("w") as sink:
            p = subprocess.Popen(
                ["bash", "-c", text],
                cwd=cwd,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        started, limit = time.monotonic(), bound(text)
        # A line that ends by itself (kubectl, --help) runs to its end first, as in
        # one terminal: started beside the next line, a slow `rollout status` was
        # still watching when the block's `delete deploy` came, and saw it.
        whole = limit == 0.0
        deadline = None if limit is None else started + (SCRIPT_LIMIT if whole else limit + SLACK)
        try:
            if limit is None:
                _settle(p, out)
            else:
                p.wait(SCRIPT_LIMIT if whole else min(SETTLE, limit + SLACK))
        except subprocess.TimeoutExpired:
            if limit is None and ("error:" in out.read_text() or "Traceback" in out.read_text()):
                os.killpg(p.pid, signal.SIGKILL)
                return [f"{c.where}: {c.text}: failed while running\n{_tail(out)}"]
        running.append((c, p, out, deadline, started + SETTLE))
        return []

    def _stop(
        self, c: Command, p: subprocess.Popen, out: Path, deadline: float | None, lives_until: float
    ) -> list[str]:
        if deadline is None:  # it runs on: it must live SETTLE at least, however soon its block is done
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.0, lives_until - time.monotonic()))
        if deadline is not None:  # bounded by its flags: it must end by itself, exit 0
            try:
                p.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return [f"{c.where}: {c.text}: still running after its flags' time\n{_tail(out)}"]
            return [] if p.returncode == 0 else [f"{c.where}: {c.text}: exit {p.returncode}\n{_tail(out)}"]
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                return [f"{c.where}: {c.text}: did not end on SIGTERM\n{_tail(out)}"]
        text = out.read_text()
        if p.returncode not in (0, -signal.SIGTERM, 128 + signal.SIGTERM) or "Traceback" in text or "error:" in text:
            return [f"{c.where}: {c.text}: exit {p.returncode} after SIGTERM\n{_tail(out)}"]
        return []

    def _ui(self, c: Command, text: str, cwd: Path) -> list[str]:
        sock_dir = short_dir()  # a socket path under xdist's tmp dirs is too long
        rc = cwd / f"rc-{c.line}"
        tmux = ["tmux", "-S", socket_in(sock_dir)]
        env_line = " ".join(f"{k}={_q(v)}" for k, v in self.env.items() if k in ("PATH", "KUBECONFIG", "HOME"))
        # On its own line: a trailing "# comment" in the docs must not swallow the echo.
        script = f"cd {_q(str(cwd))} && export {env_line} TERM=xterm-256color\n{text}\necho $? > {_q(str(rc))}"
        tty = Tty(tmux, cwd / f"tty-{c.line}", rc)
        # One tmux client: the pane's output is piped to ``tty`` before the
        # server reads any of it (the commands run before its event loop).
        subprocess.run(
            [
                *tmux,
                "new-session",
                "-d",
                "-x",
                "80",
                "-y",
                "24",
                "bash",
                "-c",
                script,
                ";",
                "pipe-pane",
                "-o",
                f"cat > {_q(str(tty.path))}",
            ],
            check=True,
            env=self.env,
        )
        try:
            screen = tty.wait_for("Quit", UI_DRAWN)
            if rc.exists() or "Quit" not in screen:
                shown = screen.strip() or _capture(tmux).strip() or tty.text()  # an ended session has no screen
                return [f"{c.where}: {c.text}: the UI did not draw (exit {_rc(rc)})\n{shown}"]
            screen = tty.wait_for(UI_SYNCED, UI_LINGER, screen)
            subprocess.run([*tmux, "send-keys", "q"], check=False)
            deadline = time.monotonic() + 15
            while not _rc_written(rc) and time.monotonic() < deadline:
                time.sleep(0.1)
            if _rc(rc) != "0" or "error:" in screen:
                return [f"{c.where}: {c.text}: exit {_rc(rc)} after q\n{screen}"]
            return []
        finally:
            subprocess.run([*tmux, "kill-server"], capture_output=True)
            remove(sock_dir)

    def _script(self, cmds: list[Command], cwd: Path, ports: dict[str, str]) -> list[str]:
        script = "\n".join(self.swap(c.text, ports, cwd) for c in cmds)
        script = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script
        try:
            r = subprocess.run(
                ["bash", "-e", "-c", script], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=BLOCK_LIMIT
            )
        except subprocess.TimeoutExpired:
            return [f"{cmds[0].where}: the block did not end within {BLOCK_LIMIT:g}s"]
        if r.returncode != 0 or "Traceback" in r.stderr:
            return [f"{cmds[0].where}: the block ended {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}"]
        return []


INFORMER = re.compile(r"(?:[A-Z_][A-Z0-9_]*=\S+ )*kubectl[ -]informer (?:watch|queue|replay|attach)\b")


def _steps(cmds: list[Command]) -> list[list[Command]]:
    """``cmds`` in the order they run: one after another (the next once the
    last has ended, or runs on as in another terminal), but consecutive
    informer commands of one block side by side, as in terminals of their
    own: the plugin never writes to the cluster, and none of them reads or
    writes a file another of them writes (``> trace.ndjson`` and ``replay
    trace.ndjson`` stay in order)."""
    steps: list[list[Command]] = []
    for c in cmds:
        if steps and _side_by_side(steps[-1], c):
            steps[-1].append(c)
        else:
            steps.append([c])
    return steps


def _side_by_side(step: list[Command], c: Command) -> bool:
    if step[-1].block != c.block or not all(INFORMER.match(x.text) and not x.text.endswith("&") for x in [*step, c]):
        return False
    written = {f for x in step for f in WRITES.findall(x.text)}
    mine = set(WRITES.findall(c.text))
    return not any(_names(f, c.text) for f in written) and not any(_names(f, x.text) for f in mine for x in step)


def _names(file: str, text: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(file)}(?![\w.-])", text) is not None


class Tty:
    """What a live UI in tmux shows, read cheaply: the bytes it writes to its
    terminal (``pipe-pane``) are watched in this process, and the screen is
    captured (a tmux client, about as costly as 0.1 s of a UI's redraws) only
    once they hold the words waited for, to check that the screen shows them,
    or every CAPTURE_EVERY at least (words split by an escape sequence).
    Polling the screen itself ran a capture every 0.1-0.25 s of each UI."""

    POLL = 0.03
    CAPTURE_EVERY = 1.0

    def __init__(self, tmux: list[str], path: Path, rc: Path):
        self.tmux, self.path, self.rc = tmux, path, rc
        self.seen = 0  # bytes of the output already searched for the words

    def _written(self, words: bytes) -> bool:
        start = max(0, self.seen - len(words) + 1)  # words cut by the last read are found whole
        try:
            with self.path.open("rb") as f:
                f.seek(start)
                chunk = f.read()
        except FileNotFoundError:
            return False
        self.seen = start + len(chunk)
        return words in chunk

    def text(self, n: int = 1500) -> str:
        """The end of what the command wrote to its terminal, without escape sequences."""
        raw = self.path.read_bytes()[-20 * n :] if self.path.exists() else b""
        return re.sub(
            r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])", "", raw.decode(errors="replace")
        )[-n:]

    def wait_for(self, words: str, seconds: float, screen: str = "") -> str:
        """The screen once it shows ``words``, or as it is after ``seconds``
        (or once the command ended) if it does not."""
        if words in screen:
            return screen
        deadline = time.monotonic() + seconds
        captured = time.monotonic()
        while time.monotonic() < deadline and not self.rc.exists():
            if self._written(words.encode()) or time.monotonic() - captured >= self.CAPTURE_EVERY:
                screen, captured = _capture(self.tmux), time.monotonic()
                if words in screen:
                    return screen
            time.sleep(self.POLL)
        return _capture(self.tmux)


def _settle(p: subprocess.Popen, out: Path) -> None:
    """A command that runs on: wait until it has printed (a server's first
    lines, a watch's first rows) and FIRST_OUTPUT_GRACE more, or SETTLE if it
    prints nothing; TimeoutExpired while it runs, as ``p.wait`` raises."""
    limit = time.monotonic() + SETTLE
    while p.poll() is None and time.monotonic() < limit:
        if out.stat().st_size:
            p.wait(min(FIRST_OUTPUT_GRACE, max(0.0, limit - time.monotonic())))
            return
        time.sleep(0.05)
    p.wait(0)


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _capture(tmux: list[str]) -> str:
    return subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout


def _rc_written(path: Path) -> bool:
    """The shell has written the exit code (``echo $? > rc`` makes the file first, empty)."""
    return path.exists() and path.read_text().endswith("\n")


def _rc(path: Path) -> str:
    return path.read_text().strip() if path.exists() else "none yet"


def _tail(path: Path, n: int = 1500) -> str:
    return path.read_text()[-n:] if path.exists() else ""


@pytest.fixture(scope="session")
def sim_cluster(tmp_path_factory):
    """A simulated cluster for the commands written without --demo: one a
    worker, the pages share it (session-scoped: a module-scoped one would
    put every page on one worker)."""
    kubeconfig = tmp_path_factory.mktemp("sim") / "cluster.kubeconfig"
    p = subprocess.Popen(
        [str(Path(sys.executable).parent / "kubectl-informer"), "sim", "--write-kubeconfig", str(kubeconfig)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not (kubeconfig.exists() and kubeconfig.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.1)
    yield kubeconfig
    p.terminate()
    p.wait(10)


def _same_words(c: Command) -> str | None:
    """What a run of ``c`` is the same as another's by: the words of a live
    UI that names no file (no replay, recording, ``/tmp/`` or
    ``$XDG_RUNTIME_DIR/`` path, no redirection); None for a command whose run
    depends on its block."""
    words = " ".join(c.text.split())
    if not is_live_ui(words) or re.search(r"\breplay\b|--record\b|/tmp/|XDG_RUNTIME_DIR/|[<>|&;]", words):
        return None
    return words


def _units() -> dict[str, list[Command]]:
    units: dict[str, list[Command]] = {}
    ran: set[str] = set()
    for c in all_commands():
        if c.skip:
            continue
        same = _same_words(c)
        if same in ran:
            continue  # quoted again, word for word: it ran where it first appears
        if same is not None:
            ran.add(same)
        units.setdefault(c.unit, []).append(c)
    return units


UNITS = _units()


def _cost(cmds: list[Command]) -> float:
    """Seconds a unit takes at least, by its commands' own bounds: the longest
    first, so that the slowest one does not start last on a worker."""
    total, longest = 0.0, 0.0
    for c in cmds:
        limit = bound(c.text)
        total += UI_LINGER + 2.0 if is_live_ui(c.text) else SETTLE if limit is None else min(limit, SETTLE)
        longest = max(longest, limit or 0.0)
    return total + longest


def test_every_command_block_is_marked_as_shell():
    bad = [b for page in sorted(DOCS.glob("*.md")) for b in unmarked_command_blocks(page)]
    assert not bad, "fence these as ```sh (and <!-- no-run: why --> if they cannot run here):\n" + "\n".join(bad)


def test_every_skip_says_why(capsys):
    cmds = all_commands()
    assert sum(not c.skip for c in cmds) >= 20
    assert all(c.skip.strip() for c in cmds if c.skip)
    skipped: dict[str, int] = {}
    for c in cmds:
        if c.skip:
            skipped[c.skip] = skipped.get(c.skip, 0) + 1
    with capsys.disabled():
        print(
            f"\ndocs commands: {sum(map(len, UNITS.values()))} run in {len(UNITS)} units; "
            f"skipped {sum(skipped.values())}:"
        )
        for why, n in sorted(skipped.items(), key=lambda kv: -kv[1]):
            print(f"  {n:3d}  {why}")


def test_every_command_runs_in_a_unit():
    """The units the test below is parametrized with hold every command that is
    not skipped, once, but a live UI quoted again word for word: it runs where
    it first appears, and only such a UI is left out."""
    ran = [c for cmds in UNITS.values() for c in cmds]
    assert len(ran) == len(set(ran))
    words = {_same_words(c) for c in ran} - {None}
    left_out = [c for c in all_commands() if not c.skip and c not in ran]
    assert all(_same_words(c) in words for c in left_out), [c.where for c in left_out if _same_words(c) not in words]
    first = {}
    for c in all_commands():
        if not c.skip and _same_words(c) is not None:
            first.setdefault(_same_words(c), c)
    assert all(first[_same_words(c)] in ran for c in left_out)


def test_a_live_ui_is_the_same_run_as_another_only_word_for_word_and_without_files():
    def cmd(text: str) -> Command:
        return Command("docs/x.md", 1, text, "docs/x.md#block0")

    assert _same_words(cmd("kubectl informer watch pods  --demo quiet")) == "kubectl informer watch pods --demo quiet"
    assert _same_words(cmd("kubectl informer watch pods --demo quiet # a comment")) != _same_words(
        cmd("kubectl informer watch pods --demo quiet")
    )
    for text in (
        "kubectl informer replay trace.ndjson",
        "kubectl informer watch pods --record t.ndjson",
        "KUBECONFIG=/tmp/sim.kubeconfig kubectl informer watch pods",
        'KUBECONFIG="$XDG_RUNTIME_DIR/sim.kubeconfig" kubectl informer watch pods',
        "kubectl informer watch pods --demo -o json --duration 3s",
        "kubectl informer sim",
    ):
        assert _same_words(cmd(text)) is None, text


def test_a_ui_that_does_not_draw_is_a_failure_that_shows_its_error_line(tmp_path):
    """The harness itself: a live UI refused before it draws (here a usage
    error, which imports no UI) fails its unit with the line it printed,
    read from its piped terminal once its tmux session is gone."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", KUBECONFIG=os.devnull)
    c = Command("docs/x.md", 1, "kubectl informer watch pods -n Bad_NS", "docs/x.md#block0", block="docs/x.md#block0")
    failures = Runner(tmp_path, env).run_unit([c])
    assert len(failures) == 1 and "the UI did not draw (exit 2)" in failures[0], failures
    assert 'error: invalid namespace "Bad_NS"' in failures[0], failures


def _pages() -> dict[str, list[list[Command]]]:
    """The units of each page, the longest first (it bounds its page); a page
    of more than PART_UNITS units in parts of about equal cost ("PAGE:1"...);
    small pages together (``_small_pages_together``)."""
    pages: dict[str, list[list[Command]]] = {}
    for unit in sorted(UNITS, key=lambda u: -_cost(UNITS[u])):
        pages.setdefault(UNITS[unit][0].page, []).append(UNITS[unit])
    out: dict[str, list[list[Command]]] = {}
    for page, units in pages.items():
        n = -(-len(units) // PART_UNITS)
        if n == 1:
            out[page] = units
            continue
        parts: list[list[list[Command]]] = [[] for _ in range(n)]
        for u in units:  # each to the part that costs least so far
            min(parts, key=lambda part: sum(map(_cost, part))).append(u)
        out.update((f"{page}:{i + 1}", part) for i, part in enumerate(parts))
    return _small_pages_together(out)


def _small_pages_together(pages: dict[str, list[list[Command]]]) -> dict[str, list[list[Command]]]:
    """Pages of a UI or two (SMALL_PAGE seconds by their bounds) in tests of
    up to PART_UNITS units ("docs/a.md+docs/b.md"), run a few at a time as a
    page's are: alone, each held a worker for a TUI's start-up."""
    out = {name: units for name, units in pages.items() if sum(map(_cost, units)) > SMALL_PAGE}
    group: list[str] = []
    for name in sorted(set(pages) - set(out)):
        if group and sum(len(pages[g]) for g in group) + len(pages[name]) > PART_UNITS:
            out["+".join(group)] = sorted((u for g in group for u in pages[g]), key=lambda u: -_cost(u))
            group = []
        group.append(name)
    if group:
        out["+".join(group)] = sorted((u for g in group for u in pages[g]), key=lambda u: -_cost(u))
    return out


PAGES = _pages()


# One test a page, so the workers share them (all in one test were the
# suite's longest pole); a page's units run side by side, as they all did.
@pytest.mark.parametrize("page", sorted(PAGES, key=lambda p: -max(map(_cost, PAGES[p]))))
def test_every_command_in_docs_runs_as_written(page, tmp_path, sim_cluster):
    env = dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        KUBECONFIG=str(sim_cluster),
        # tools/ (docshots) runs from a clone, as docs/screenshots.md says
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    runner = Runner(tmp_path, env)
    with ThreadPoolExecutor(PAGE_UNITS_AT_ONCE) as pool:
        failures = [f for fs in pool.map(runner.run_unit, PAGES[page]) for f in fs]
    assert not failures, "\n\n".join(failures)
