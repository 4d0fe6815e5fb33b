"""``python -m kubectl_informer.sim``: the simulated cluster in its own process.

For benchmarks that measure a client's memory apart from the server's, and
for use without the plugin's CLI. Same output as ``kubectl informer sim``.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType
from typing import NoReturn

from kubectl_informer.sim.run import run_sim


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kubectl_informer.sim", description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free one)")
    ap.add_argument(
        "--write-kubeconfig",
        metavar="FILE",
        help="write a kubeconfig pointing at the server, with its token (0600; in a directory of your own)",
    )
    ap.add_argument("--scenario", default=None, help="churn scenario (default steady; quiet for none)")
    ap.add_argument("--rate", type=float, default=None, help="scenario ticks per second")
    ap.add_argument(
        "--tls",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="serve HTTPS with a self-signed certificate (default; kubectl sends a token only over TLS)",
    )
    ap.add_argument("--pods", type=int, default=0, help="also bulk-load this many pods into namespace 'bench'")
    ap.add_argument(
        "--watch-cache-size",
        type=int,
        default=None,
        help="fix the watch-cache window per resource at N events (default: kube-apiserver's, "
        "100 growing to 102,400 while its events are younger than 75 s)",
    )
    ap.add_argument("--no-watch-list", action="store_true", help="reject sendInitialEvents (WatchList off)")
    ap.add_argument(
        "--no-controllers", action="store_true", help="no Deployment/ReplicaSet controllers or garbage collector"
    )
    a = ap.parse_args(argv)

    def on_term(signum: int, frame: FrameType | None) -> NoReturn:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        run_sim(
            port=a.port,
            write_kubeconfig=a.write_kubeconfig,
            scenario=a.scenario,
            tls=a.tls,
            rate=a.rate,
            watch_cache_size=a.watch_cache_size,
            watch_list=not a.no_watch_list,
            bulk_pods=a.pods,
            controllers=not a.no_controllers,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
