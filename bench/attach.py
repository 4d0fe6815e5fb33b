"""Benchmark: what one scrape costs attach (parse + model), on a big page.

A controller-runtime manager with many controllers prints, per controller,
the seven workqueue series (two histograms of 12 buckets), the reconcile
counters and gauges; real pages add Go runtime and process series, which
attach parses and ignores (here 1,000 such samples). The bench builds such a
page for CONTROLLERS controllers (default 40), then times, over many rounds:
prometheus_client's parser alone, and parse + AttachModel.update (what the
scraper thread does each interval). The parser is the peer: attach's own
work is the difference.

Target: a scrape's parse + update under 50 ms (5% of the default 1 s interval).

    python bench/attach.py
    ATTACH_BENCH_CONTROLLERS=200 python bench/attach.py
    BENCH_SMOKE=1 python bench/attach.py   # 4 controllers, 5 rounds: the test suite's smoke run

The last line is ``bench attach: samples=N whole_page_parse_ms=F scrape_ms=F ratio=F``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prometheus_client.parser import text_string_to_metric_families

from kubectl_informer.attach.model import AttachModel
from kubectl_informer.attach.page import parse_page

BOUNDS = (
    "1e-08",
    "1e-07",
    "1e-06",
    "9.999999999999999e-06",
    "9.999999999999999e-05",
    "0.001",
    "0.01",
    "0.1",
    "1",
    "10",
    "100",
    "1000",
)
TARGET_MS = 50.0


def page(controllers: int, tick: int) -> str:
    out = []
    for i in range(controllers):
        c = f'controller="c{i}",name="c{i}"'
        out.append(f'workqueue_depth{{{c},priority=""}} {tick % 7}')
        out.append(f"workqueue_adds_total{{{c}}} {tick * 10 + i}")
        out.append(f"workqueue_retries_total{{{c}}} {tick}")
        out.append(f"workqueue_unfinished_work_seconds{{{c}}} 0.5")
        out.append(f"workqueue_longest_running_processor_seconds{{{c}}} 0.25")
        for h in ("queue_duration_seconds", "work_duration_seconds"):
            for k, b in enumerate(BOUNDS):
                out.append(f'workqueue_{h}_bucket{{{c},le="{b}"}} {tick * k}')
            out.append(f'workqueue_{h}_bucket{{{c},le="+Inf"}} {tick * 12}')
            out.append(f"workqueue_{h}_sum{{{c}}} {tick * 0.1}")
            out.append(f"workqueue_{h}_count{{{c}}} {tick * 12}")
        for r in ("success", "error", "requeue", "requeue_after"):
            out.append(f'controller_runtime_reconcile_total{{controller="c{i}",result="{r}"}} {tick * 3}')
        out.append(f'controller_runtime_reconcile_errors_total{{controller="c{i}"}} {tick}')
        out.append(f'controller_runtime_active_workers{{controller="c{i}"}} 1')
        out.append(f'controller_runtime_max_concurrent_reconciles{{controller="c{i}"}} 4')
    for j in range(1000):  # runtime/process series a real page carries
        out.append(f'go_other_series_{j % 50}{{k="{j}"}} {j}')
    return "\n".join(out) + "\n"


def main() -> None:
    smoke = os.environ.get("BENCH_SMOKE") == "1"  # the test suite's run: same code, small page
    if smoke:
        print("smoke mode (BENCH_SMOKE=1): the same code path for a few seconds; its figures measure nothing")
    controllers = int(os.environ.get("ATTACH_BENCH_CONTROLLERS", "4" if smoke else "40"))
    rounds = int(os.environ.get("ATTACH_BENCH_ROUNDS", "5" if smoke else "60"))
    pages = [page(controllers, t + 1) for t in range(rounds)]
    samples = sum(1 for ln in pages[0].splitlines() if ln and not ln.startswith("#"))
    parse_only, full = [], []
    for text in pages:
        t0 = time.perf_counter()
        for fam in text_string_to_metric_families(text):
            for _ in fam.samples:
                pass
        parse_only.append(time.perf_counter() - t0)
    model = AttachModel()
    for n, text in enumerate(pages):
        t0 = time.perf_counter()
        model.update(parse_page(text, float(n)))
        full.append(time.perf_counter() - t0)
    assert len(model.queues) == controllers and len(model.controllers) == controllers
    p_ms = statistics.median(parse_only) * 1e3
    f_ms = statistics.median(full) * 1e3
    print(f"page: {controllers} controllers, {samples} samples, {len(pages[0]) / 1024:.0f} KiB; {rounds} rounds")
    print(f"prometheus_client on the whole page (peer): median {p_ms:.1f} ms")
    print(
        f"attach scrape (parse_page + model update):   median {f_ms:.1f} ms (target < {TARGET_MS:.0f} ms), "
        f"p90 {sorted(full)[int(len(full) * 0.9)] * 1e3:.1f} ms"
    )
    print(f"ratio attach/peer: {f_ms / p_ms:.2f}")
    print(
        f"bench attach: samples={samples} whole_page_parse_ms={p_ms:.1f} scrape_ms={f_ms:.1f} ratio={f_ms / p_ms:.2f}"
    )


if __name__ == "__main__":
    main()
