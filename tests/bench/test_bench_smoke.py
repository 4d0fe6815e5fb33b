"""Every bench in bench/ runs in its smoke mode (BENCH_SMOKE=1: a few
seconds on the same code path) and prints its ``bench NAME: key=value ...``
line with every key: a refactor that breaks a bench fails here, not on the
day someone next measures."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The keys each bench's last line carries (its docstring documents them).
KEYS = {
    "engine": ["deltas_per_s", "tracer_off_overhead", "rss_per_object_kib", "staleness_overhead", "index_overhead"],
    "cluster": [
        "speedup_10k",
        "rss_ratio_10k",
        "sync_100k_s",
        "rss_100k_mib",
        "meta_rss_ratio_100k",
        "rss_watchlist_ratio_100k",
    ],
    "tui": [
        "events_per_s",
        "events_per_cpu_s",
        "key_p99_ms",
        "rss_growth",
        "rss_mib",
        "big_list_ratio",
        "big_list_key_p99_ms",
        "big_list_rss_mib",
        "young_gc_cpu_s_per_mev",
        "young_gc_longest_ms",
        "young_per_frame",
    ],
    "ship": ["archive_mib", "version_warm_s", "first_frame_s"],
    "attach": ["samples", "whole_page_parse_ms", "scrape_ms", "ratio"],
    "soak": ["rss_growth", "disagreements", "events", "held_over_bound"],
    "informers": ["one_run_s", "three_runs_s", "one_run_rss_mib", "three_runs_rss_mib", "time_ratio", "rss_ratio"],
}


# The lines a bench ends with when asked for one figure alone (``--only``).
ONLY_KEYS = {
    "engine-staleness": [
        "overhead_pct",
        "q1_pct",
        "q3_pct",
        "min_pct",
        "max_pct",
        "pairs",
        "rate",
        "achieved_rate",
        "delta_ns",
        "parts_ns",
    ],
}


def run_smoke(name: str, *args: str, timeout: float = 110, line: str | None = None) -> dict[str, float]:
    """Run bench/NAME.py in smoke mode; the figures of its last
    ``bench LINE: ...`` line (LINE is NAME unless given)."""
    line = line or name
    env = dict(os.environ, BENCH_SMOKE="1")
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "smoke mode (BENCH_SMOKE=1)" in r.stdout, r.stdout[-2000:]
    lines = [text for text in r.stdout.splitlines() if text.startswith(f"bench {line}: ")]
    assert lines, r.stdout[-2000:]
    last = lines[-1]
    pairs = re.findall(r"(\w+)=(\S+)", last)
    assert [k for k, _ in pairs] == (KEYS.get(line) or ONLY_KEYS[line]), last
    figures = {k: float(v) for k, v in pairs}
    assert all(math.isfinite(v) for v in figures.values()), last
    return figures


def test_every_bench_has_a_smoke_test():
    assert {p.stem for p in (ROOT / "bench").glob("*.py")} == set(KEYS)


def test_engine_bench():
    figures = run_smoke("engine")
    assert figures["deltas_per_s"] > 0 and figures["rss_per_object_kib"] > 0


def test_engine_staleness_bench():
    # The 1.36 store RV + informer metrics figure alone: paired runs at the rate.
    figures = run_smoke("engine", "--only", "staleness", line="engine-staleness")
    assert figures["pairs"] == 2 and figures["rate"] == 60_000
    assert figures["achieved_rate"] > 0 and figures["delta_ns"] > 0
    assert figures["q1_pct"] <= figures["overhead_pct"] <= figures["q3_pct"]


def test_cluster_bench():
    figures = run_smoke("cluster")
    assert figures["sync_100k_s"] > 0 and figures["rss_100k_mib"] > 0


def test_tui_bench():
    figures = run_smoke("tui")
    assert figures["events_per_s"] > 0 and figures["big_list_key_p99_ms"] > 0 and figures["big_list_ratio"] > 0
    assert figures["young_gc_cpu_s_per_mev"] > 0 and figures["young_gc_longest_ms"] > 0  # 1.5 s of flood collects
    assert figures["young_per_frame"] > 0  # 20 fixed frames of 512 events collect too


def test_attach_bench():
    figures = run_smoke("attach")
    assert figures["samples"] > 0 and figures["scrape_ms"] > 0


def test_soak_bench():
    # Correctness, not speed: the cache agrees with the server and no history outgrows its bound.
    figures = run_smoke("soak")
    assert figures["events"] > 0
    assert figures["disagreements"] == 0 and figures["held_over_bound"] == 0


@pytest.mark.e2e
@pytest.mark.tmux
def test_ship_bench(krew_build):
    figures = run_smoke("ship", "--out", str(krew_build.archive.parent))
    assert figures["archive_mib"] > 0 and figures["first_frame_s"] > 0


def test_informers_bench():
    figures = run_smoke("informers")
    assert figures["one_run_s"] > 0 and figures["three_runs_rss_mib"] > figures["one_run_rss_mib"] > 0
