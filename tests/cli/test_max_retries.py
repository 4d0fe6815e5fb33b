"""``queue --max-retries N`` through the CLI: a key that keeps failing is
requeued N times, then given up on (client-go's examples/workqueue)."""

import re

from tests.security.in_process import run_in_process


def test_queue_text_gives_up_after_max_retries():
    r = run_in_process(
        "queue",
        "pods",
        "--demo",
        "-o",
        "text",
        "--fail-rate",
        "1",
        "--max-retries",
        "1",
        "--workers",
        "1",
        "--work-time",
        "1ms",
        "--duration",
        "1500ms",
    )
    assert r.returncode == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    gave_up = [ln for ln in lines if ln.startswith("Gave up ")]
    assert gave_up, r.stdout[-2000:]
    assert all(re.fullmatch(r"Gave up \S+ after 1 retries \(--max-retries 1\): forgotten", ln) for ln in gave_up)
    # Never a second requeue: at NumRequeues 1 the key is forgotten instead.
    requeues = [ln for ln in lines if ln.startswith("Requeue ")]
    assert requeues and all(ln.endswith(" requeues=1") for ln in requeues)
    # Each key given up on had failed once and been requeued first.
    key = gave_up[0].split()[2]
    mine = [ln.split()[0] for ln in lines if f" {key} " in ln and ln.split()[0] in ("Requeue", "Gave", "Worked")]
    assert mine[:4] == ["Requeue", "Worked", "Gave", "Worked"]
