"""Files this tool writes, made so that another local user can neither read
them nor make us write where they choose.

Every file we write (the simulator's kubeconfig, a ``--record`` recording,
the discovery cache, a crash log) goes through here:

- a new file is created with ``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600, under a
  random name in the target's own directory, then renamed onto the target:
  ``rename`` replaces a name and never follows a symbolic link planted there,
  and a reader sees the old file or the new one, never half of one;
- a symbolic link at the target is refused, whoever owns it (give the path it
  points to), and so is a file another user owns (they could read what we
  write, or swap in their own content afterwards: a kubeconfig's ``exec:``
  plugin would then run as us);
- a file of ours at the target is replaced (a new file renamed over it: its
  old content, mode and other hard links are left as they were);
- a directory another user owns (root aside), or one anyone may write without
  the sticky bit, is refused: whoever can rename entries in it could replace
  the file after it is written;
- a device or a pipe (``/dev/null``, a FIFO) of ours or root's is written in
  place, never created nor truncated.

A refusal is a ``PrivateFileError`` (an ``OSError`` whose ``strerror`` is
one line for the user, without the file's content).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import IO, Any

MODE = 0o600
DIR_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class PrivateFileError(OSError):
    """A path we refuse to write: one line in ``strerror``."""

    def __init__(self, message: str) -> None:
        super().__init__(errno.EPERM, message)

    def __str__(self) -> str:
        return self.strerror or ""


def _check_dir(directory: str) -> None:
    st = os.stat(directory)
    uid = os.geteuid()
    if st.st_uid not in (uid, 0):
        raise PrivateFileError(
            f"its directory {directory} belongs to another user (uid {st.st_uid}), "
            f"who could replace the file; choose a directory of your own"
        )
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        raise PrivateFileError(
            f"its directory {directory} is writable by every user and not sticky; choose a directory of your own"
        )


def check_target(path: str) -> os.stat_result | None:
    """What is at ``path`` if we may write it (None: nothing), else
    PrivateFileError: a symbolic link, or a file another user owns."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise PrivateFileError(f"{path} is a symbolic link; it is not followed (give the path it points to)")
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    uid = os.geteuid()
    if st.st_uid != uid and not (st.st_uid == 0 and not stat.S_ISREG(st.st_mode)):
        raise PrivateFileError(
            f"{path} belongs to another user (uid {st.st_uid}); it is not reused (remove it or choose another path)"
        )
    return st


def _prepare(path: str, make_parents: bool) -> tuple[str, os.stat_result | None]:
    path = os.path.abspath(os.path.expanduser(path))
    parent = os.path.dirname(path)
    if make_parents and not os.path.isdir(parent):
        os.makedirs(parent, mode=DIR_MODE, exist_ok=True)
    _check_dir(parent)
    return path, check_target(path)


def create_new(path: str) -> int:
    """A new file at ``path`` (O_EXCL|O_NOFOLLOW, 0600): its descriptor,
    opened for writing. FileExistsError if anything is there already."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, MODE)
    try:
        os.fchmod(fd, MODE)  # the umask can only take bits away; say what we mean
    except OSError:
        os.close(fd)
        raise
    return fd


def _create_beside(path: str) -> tuple[int, str]:
    directory, base = os.path.split(path)
    for _ in range(100):
        tmp = os.path.join(directory, f".{base}.{os.urandom(6).hex()}.tmp")
        try:
            return create_new(tmp), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary name", directory)


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def open_private(path: str, *, make_parents: bool = False, text: bool = True) -> IO[Any]:
    """``path`` opened for writing under the rules above: a new private file
    renamed into place at once (so it exists, empty, from the start), or a
    device or pipe of ours written in place. Returns a file object."""
    path, st = _prepare(path, make_parents)
    if st is not None and not stat.S_ISREG(st.st_mode):
        fd = os.open(path, os.O_WRONLY | _NOFOLLOW | _CLOEXEC)
    else:
        fd, tmp = _create_beside(path)
        try:
            os.replace(tmp, path)
        except BaseException:
            os.close(fd)
            _unlink(tmp)
            raise
    if text:
        return os.fdopen(fd, "w", encoding="utf-8")
    return os.fdopen(fd, "wb")


def write_private(path: str, data: bytes, *, make_parents: bool = False) -> str:
    """Write ``data`` to ``path`` under the rules above, whole or not at all
    (a private temporary file renamed onto ``path`` once written). Returns
    the absolute path."""
    path, st = _prepare(path, make_parents)
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(os.open(path, os.O_WRONLY | _NOFOLLOW | _CLOEXEC), "wb") as f:
            f.write(data)
        return path
    fd, tmp = _create_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    return path
