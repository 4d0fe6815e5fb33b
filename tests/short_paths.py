"""Short directories for tmux sockets.

A Unix socket's path must fit in 108 bytes; the per-test tmp dirs that
pytest-xdist hands out (``/tmp/pytest-of-USER/pytest-N/popen-gwK/test_a_long_name0``)
do not leave room for it ("File name too long"). Each socket gets a fresh
directory of its own under /tmp, so two workers never share a tmux server.
"""

from __future__ import annotations

import os
import shutil
import tempfile


def short_dir() -> str:
    """A fresh, private directory with a short path; the caller removes it."""
    return tempfile.mkdtemp(prefix="ki-", dir="/tmp")


def remove(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)


def socket_in(directory: str) -> str:
    return os.path.join(directory, "tmux.sock")
