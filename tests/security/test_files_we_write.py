"""Files we write (docs/security.md, "Files it writes"): the simulator's
kubeconfig (``sim --write-kubeconfig``) and a recording (``--record``) are
never written through a symbolic link nor into a file or directory another
user owns; what we write is mode 0600; a file of ours is replaced by a new
one renamed over it. Each refusal is one ``error:`` line, exit 1.

Through the command's own code (tests/security/in_process.py); the
simulator's kubeconfig written by the real ``sim`` command is
tests/security/test_simulator_auth.py's."""

from __future__ import annotations

import os
import stat

import pytest

from kubectl_informer.core import private_files
from tests.security.conftest import assert_refused
from tests.security.in_process import run_in_process

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


def write_kubeconfig_at(path) -> object:
    return run_in_process("sim", "--write-kubeconfig", str(path), "--scenario", "quiet")


def record_to(path) -> object:
    return run_in_process("watch", "pods", "--demo", "quiet", "-o", "json", "--max-events", "1", "--record", str(path))


def test_a_planted_symbolic_link_is_never_followed(tmp_path):
    precious = tmp_path / "precious"
    precious.write_text("keep me\n")
    for name, run in (("kc", write_kubeconfig_at), ("rec.ndjson", record_to)):
        link = tmp_path / name
        link.symlink_to(precious)
        line = assert_refused(run(link), 1, contains=("is a symbolic link; it is not followed",))
        assert str(link) in line
        assert precious.read_text() == "keep me\n" and link.is_symlink()
        # A dangling link: O_CREAT through it would create its target.
        dangling = tmp_path / f"dangling-{name}"
        dangling.symlink_to(tmp_path / f"created-{name}")
        assert_refused(run(dangling), 1, contains=("is a symbolic link",))
        assert not (tmp_path / f"created-{name}").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["precious", "kc", "rec.ndjson", "dangling-kc", "dangling-rec.ndjson"]
    )  # no temporary file left


@as_root
def test_a_file_or_directory_another_user_owns_is_not_reused(tmp_path):
    """Another user's world-writable file: they could swap an exec:
    credential plugin into our kubeconfig, or read our recording."""
    for name, run in (("kc", write_kubeconfig_at), ("rec.ndjson", record_to)):
        theirs = tmp_path / name
        theirs.write_text("theirs\n")
        theirs.chmod(0o666)
        os.chown(theirs, NOBODY, NOBODY)
        assert_refused(run(theirs), 1, contains=(f"{theirs} belongs to another user (uid {NOBODY}); it is not reused",))
        st = theirs.stat()
        assert (theirs.read_text(), st.st_uid, stat.S_IMODE(st.st_mode)) == ("theirs\n", NOBODY, 0o666)
    their_dir = tmp_path / "shared"
    their_dir.mkdir(mode=0o777)
    their_dir.chmod(0o777)
    os.chown(their_dir, NOBODY, NOBODY)
    assert_refused(record_to(their_dir / "rec.ndjson"), 1, contains=("belongs to another user",))
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)  # ours, but anyone may rename entries in it (no sticky bit)
    assert_refused(write_kubeconfig_at(open_dir / "kc"), 1, contains=("writable by every user and not sticky",))
    assert list(their_dir.iterdir()) == list(open_dir.iterdir()) == []


def test_what_we_write_is_0600_and_replaces_a_file_of_ours(tmp_path):
    """A file of ours is replaced by a new private one (rename): its old
    mode does not carry over and a hard link to it keeps the old content."""
    rec = tmp_path / "rec.ndjson"
    rec.write_text("old\n")
    rec.chmod(0o644)
    (tmp_path / "hardlink").hardlink_to(rec)
    r = record_to(rec)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(rec.stat().st_mode) == 0o600
    assert '"kind":"run.info"' in rec.read_text().splitlines()[0]
    assert (tmp_path / "hardlink").read_text() == "old\n"
    kc = tmp_path / "made" / "kc"  # the kubeconfig's directories are made, 0700
    private_files.write_private(str(kc), b"x", make_parents=True)
    assert (stat.S_IMODE(kc.stat().st_mode), stat.S_IMODE(kc.parent.stat().st_mode)) == (0o600, 0o700)
