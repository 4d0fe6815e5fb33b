"""A free TCP port for a command that binds a port it is given.

A port found by binding port 0 comes from the kernel's ephemeral range, where
every other port-0 bind of the suite (a simulator, a hostile server, a
client's own end) lands too: released before the command binds it, it can be
taken by one of them, and a ``curl`` waiting for the command then talks to
that server instead. A port below the ephemeral range is never handed out by
a port-0 bind, so one that binds now stays free for the command.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

_LOWEST = 10000


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A port on 127.0.0.1 that binds now, below the ephemeral range."""
    high = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(_LOWEST, high)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_LOWEST}-{high - 1}")
