"""The habits the code keeps, held on every test run: ruff's lint rules and its
format over the whole repository, and mypy over kubectl_informer/ (strict on
the engine's packages). Their configuration is pyproject.toml's; the versions
are pinned in the test extra, so a new release's rules arrive as an upgrade."""

import pathlib
import re
import subprocess
import sys
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=110)


def test_ruff_finds_nothing():
    result = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_would_change_nothing():
    result = _run("ruff", "format", "--no-cache", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.long_wait  # ~10 s of one core with a cold cache: started early, beside the waiting tests
def test_mypy_finds_nothing(tmp_path):
    result = _run("mypy", "--cache-dir", str(tmp_path / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_silenced_finding_says_why():
    """A `type: ignore` or `noqa` comment names its codes and gives a reason
    after them on the same line: a bare one silences every finding there."""
    bare = []
    for path in sorted(p for d in CHECKED for p in (ROOT / d).rglob("*.py")):
        with tokenize.open(path) as source:
            comments = [t for t in tokenize.generate_tokens(source.readline) if t.type == tokenize.COMMENT]
        for token in comments:
            for marker, said_why in SILENCERS.items():
                at = token.string.find(marker)
                if at >= 0 and not said_why.match(token.string[at + len(marker) :]):
                    bare.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {token.string}")
    assert bare == []


CHECKED = ("kubectl_informer", "tests", "bench", "tools", "packaging")
_CODES = r"[A-Za-z0-9-]+(?:,\s*[A-Za-z0-9-]+)*"
SILENCERS = {
    "type: ignore": re.compile(rf"\[{_CODES}\]\s+\S+\s+\S+"),  # [code]  a reason of two words or more
    "noqa": re.compile(rf":\s*{_CODES}\s+\S+\s+\S+"),  # : CODE  a reason of two words or more
}
