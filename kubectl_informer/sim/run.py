"""``kubectl informer sim``: the simulated cluster in the foreground, for
practising with kubectl and the plugin side by side."""

from __future__ import annotations

import os
import sys
import threading
from typing import TextIO

from kubectl_informer.sim.demo import start_demo
from kubectl_informer.sim.scenarios import Scenario, get_scenario


def run_sim(
    port: int = 0,
    write_kubeconfig: str | None = None,
    scenario: str | None = None,
    tls: bool = True,
    *,
    rate: float | None = None,
    watch_cache_size: int | None = None,
    watch_list: bool = True,
    bulk_pods: int = 0,
    out: TextIO | None = None,
    stop_event: threading.Event | None = None,
    controllers: bool = True,
) -> None:
    """Serve until Ctrl-C (or ``stop_event``). Bad input raises ValueError
    with a one-line message (unknown scenario, port in use). ``controllers``:
    run the simulated Deployment/ReplicaSet controllers and garbage collector.
    ``tls`` (the default): kubectl sends the server's token only over TLS
    (client-go's clientcmd reads a user's credentials only for a TLS server)."""
    out = out or sys.stdout
    sc = get_scenario(scenario or "steady")
    if not 0 <= port <= 65535:
        raise ValueError(f"invalid port {port}")
    if bulk_pods < 0:
        raise ValueError(f"invalid pod count {bulk_pods}")
    try:
        demo = start_demo(
            sc.name,
            rate=rate,
            port=port,
            tls=tls,
            kubeconfig_path=write_kubeconfig,
            watch_cache_size=watch_cache_size,
            watch_list=watch_list,
            bulk_pods=bulk_pods,
            controllers=controllers,
        )
    except OSError as e:
        raise ValueError(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}") from None
    kc = demo.kubeconfig_path
    # One write, flushed: a reader waiting for the last line gets them all at once.
    out.write(_banner(demo.url, kc, sc))
    out.flush()
    try:
        _serve_until(stop_event or threading.Event())
    finally:
        demo.stop()
        if write_kubeconfig is not None and os.path.exists(kc):  # else the temp kubeconfig went with the demo
            print(f"(kubeconfig left at {kc})", file=out)
        print("Simulated API server stopped.", file=out, flush=True)


def _banner(url: str, kubeconfig: str, sc: Scenario) -> str:
    """Where the server listens, its kubeconfig, its scenario, and commands to try."""
    return (
        f"Simulated API server listening on {url}\n"
        f"Kubeconfig: {kubeconfig}\n"
        f"Scenario: {sc.name} - {sc.description}\n"
        f"Try:  kubectl --kubeconfig {kubeconfig} get pods -A\n"
        f"      KUBECONFIG={kubeconfig} kubectl informer watch pods\n"
        "Press Ctrl-C to stop.\n"
    )


def _serve_until(stop_event: threading.Event) -> None:
    """Wait for ``stop_event`` or Ctrl-C (the server runs in its own threads)."""
    try:
        while not stop_event.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
