"""What the docs-commands test takes for a command, and how long it lets one run."""

from __future__ import annotations

from .doc_commands import page_commands, unmarked_command_blocks
from .test_docs_commands import bound, is_live_ui

PAGE = """# A page

Run `kubectl informer watch pods --demo` now; `kubectl informer attach TARGET` is a synopsis,
and `kubectl informer watch` names the command.

```sh
# a comment
kubectl informer watch pods --demo \\
  -o text --duration 3s
kubectl informer replay t.ndjson
```

<!-- no-run: needs a real cluster -->
```sh
kubectl informer watch pods -n my-system
```

<!-- walkthrough -->
```sh
kubectl informer sim &
```

<!-- no-run: a port-forward -->
On a real cluster: `kubectl informer attach http://127.0.0.1:8080/metrics`.

```
kubectl informer watch pods
```

```
  informer  pods ns default
```
"""


def test_commands_and_their_skips(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    got = [(c.line, c.text, c.skip) for c in page_commands(page)]
    assert got == [
        (8, "kubectl informer watch pods --demo -o text --duration 3s", ""),
        (10, "kubectl informer replay t.ndjson", ""),
        (15, "kubectl informer watch pods -n my-system", "needs a real cluster"),
        (20, "kubectl informer sim &", "run by tests/attach/test_docs_walkthrough.py"),
        (3, "kubectl informer watch pods --demo", ""),
        (3, "kubectl informer attach TARGET", "a synopsis with placeholders"),
        (4, "kubectl informer watch", "names a command (it needs arguments)"),
        (24, "kubectl informer attach http://127.0.0.1:8080/metrics", "a port-forward"),
    ]
    cmds = page_commands(page)
    assert cmds[0].unit == cmds[1].unit != cmds[2].unit  # one block's lines run in order


def test_a_command_block_without_sh_is_flagged(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    assert unmarked_command_blocks(page) == ["docs/page.md:26: kubectl informer watch pods"]


def test_live_ui_or_headless():
    assert is_live_ui("kubectl informer watch pods --demo burst")
    assert is_live_ui("KUBECONFIG=/x kubectl informer queue")
    assert not is_live_ui("kubectl informer watch pods -o text --duration 3s")
    assert not is_live_ui("kubectl informer watch pods -o=json")
    assert not is_live_ui("kubectl informer watch pods --demo --strip-managed-fields -o json | grep x")
    assert not is_live_ui("kubectl informer sim --list-scenarios")
    assert not is_live_ui("kubectl informer watch --help")


def test_how_long_a_headless_command_may_take():
    assert bound("kubectl informer watch pods -o text --duration 7s") == 7.0
    assert bound("kubectl informer watch pods -o json --duration 1m") is None  # runs on
    assert bound("kubectl informer attach http://x -o text --count 10") == 12.0
    assert bound("kubectl informer watch pods -o json --max-events 40 | grep x") == 0.0
    assert bound("kubectl informer watch deployments.apps web -o text") is None
    assert bound("kubectl informer sim --write-kubeconfig /tmp/k") is None
    assert bound("kubectl --kubeconfig k get pods -A -w") is None
    assert bound("kubectl informer sim --list-scenarios") == 0.0
    assert bound("kubectl __complete informer watch --demo ''") == 0.0


def test_a_block_reading_an_earlier_blocks_file_runs_after_it(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\nkubectl informer watch pods -o json --duration 5s > t.ndjson\n```\n\n"
        "```sh\nkubectl informer watch pods --demo\n```\n\n"
        "```sh\nkubectl informer replay t.ndjson\n```\n"
    )
    first, other, replay = page_commands(page)
    assert replay.unit == first.unit == first.block != replay.block
    assert other.unit == other.block != first.unit


def test_informer_commands_of_a_block_run_side_by_side_unless_one_reads_what_another_writes():
    from .doc_commands import Command
    from .test_docs_commands import _steps

    def cmds(block: str, *texts: str) -> list[Command]:
        return [Command("docs/p.md", i, t, "u", "", block) for i, t in enumerate(texts)]

    a = cmds(
        "b0",
        "kubectl informer watch pods --demo flaky -o json --duration 20s > trace.ndjson",
        "kubectl informer watch pods --demo -o text --duration 20s --record d.ndjson",
    )
    b = cmds(
        "b1",
        "kubectl informer replay trace.ndjson",
        "kubectl informer replay d.ndjson --speed 10",
        "kubectl create namespace x",
        "kubectl informer watch pods --record t.ndjson",
        "kubectl informer replay t.ndjson",
        "kubectl informer queue --metrics-addr 127.0.0.1:9101 &",
    )
    steps = [[c.line for c in step] for step in _steps(a + b)]
    # Two writers of different files together; the readers in the next block
    # (a block ends what runs on); kubectl itself, a reader of the file before
    # it and a background job each alone.
    assert steps == [[0, 1], [0, 1], [2], [3], [4], [5]]
