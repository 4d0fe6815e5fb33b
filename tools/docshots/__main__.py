"""``python -m tools.docshots [NAME...]``: regenerate docs/screenshots/.

Each shot runs in its own process (a run tunes and pins the process), a few
at a time; ``--list`` prints the registry."""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click

from tools.docshots.registry import SHOTS, by_name

ROOT = Path(__file__).resolve().parents[2]


def _one(name: str, root: Path) -> tuple[str, int, str, float]:
    started = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "tools.docshots", "--in-process", "--root", str(root), name],
        capture_output=True,
        text=True,
    )
    return name, p.returncode, (p.stderr or p.stdout).strip(), time.monotonic() - started


@click.command()
@click.argument("names", nargs=-1)
@click.option("--list", "list_only", is_flag=True, help="Print the shots and exit.")
@click.option("--jobs", "-j", type=click.IntRange(1, 16), default=3, show_default=True, help="Shots at a time.")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=ROOT,
    help="Where docs/screenshots/ is written (the repository by default).",
)
@click.option("--in-process", is_flag=True, hidden=True)
def main(names: tuple[str, ...], list_only: bool, jobs: int, root: Path, in_process: bool) -> None:
    try:
        shots = [by_name(n) for n in names] if names else list(SHOTS)
    except KeyError as e:
        raise click.UsageError(e.args[0]) from None
    if list_only:
        for s in shots:
            click.echo(
                f"{s.path}  {s.size[0]}x{s.size[1]}  {s.command}  keys={' '.join(s.keys) or '-'}  until {s.until}"
            )
        return
    if in_process:
        from tools.docshots.render import ShotError, render

        for s in shots:
            try:
                render(s, root)
            except ShotError as e:
                raise click.ClickException(str(e)) from None
        return
    failed = 0
    with ThreadPoolExecutor(jobs) as pool:
        for name, code, err, took in pool.map(lambda s: _one(s.name, root), shots):
            click.echo(f"{'ok ' if code == 0 else 'FAIL'} {name} ({took:.1f}s){'' if code == 0 else ': ' + err}")
            failed += code != 0
    if failed:
        raise click.ClickException(f"{failed} of {len(shots)} shots failed")


if __name__ == "__main__":
    main()
