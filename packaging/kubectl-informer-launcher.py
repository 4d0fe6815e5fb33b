#!/usr/bin/env python3
"""kubectl-informer: the small launcher that the krew archive installs.

kubectl informer is a Python program. This launcher needs a Python 3.11+ on
PATH (or named by KUBECTL_INFORMER_PYTHON). On first run it creates a private
virtual environment under the user's cache directory and installs the plugin
wheel shipped beside it (its dependencies come from PyPI); every later run
starts that environment's interpreter directly. Standard library only.
"""

import glob
import os
import shutil
import subprocess
import sys

VERSION = "0.1.0"  # the release workflow stamps the tag's version here
MIN = (3, 11)
CANDIDATES = ("python3.14", "python3.13", "python3.12", "python3.11", "python3", "python")


def fail(msg):
    sys.stderr.write("error: " + msg + "\n")
    return 1


def here():
    exe = sys.executable if getattr(sys, "frozen", False) else os.path.abspath(__file__)
    return os.path.dirname(os.path.realpath(exe))


def home_dir():
    if os.environ.get("KUBECTL_INFORMER_HOME"):
        return os.environ["KUBECTL_INFORMER_HOME"]
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "kubectl-informer", VERSION)


def venv_python(home):
    if os.name == "nt":
        return os.path.join(home, "Scripts", "python.exe")
    return os.path.join(home, "bin", "python")


def good_enough(cmd):
    try:
        out = subprocess.run(cmd + ["-c", "import sys; print(sys.version_info[:2] >= (%d, %d))" % MIN],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and out.stdout.strip() == "True"


def find_python():
    named = os.environ.get("KUBECTL_INFORMER_PYTHON")
    if named:
        return [named] if good_enough([named]) else None
    if not getattr(sys, "frozen", False) and sys.version_info[:2] >= MIN:
        return [sys.executable]
    for name in CANDIDATES:
        path = shutil.which(name)
        if path and good_enough([path]):
            return [path]
    if os.name == "nt" and shutil.which("py") and good_enough(["py", "-3"]):
        return ["py", "-3"]
    return None


def install(home):
    python = find_python()
    if python is None:
        return fail("kubectl informer needs Python %d.%d or newer on PATH "
                    "(or set KUBECTL_INFORMER_PYTHON to one)" % MIN)
    sys.stderr.write("kubectl informer: first run, installing into %s ...\n" % home)
    wheels = sorted(glob.glob(os.path.join(here(), "kubectl_informer-*.whl")))
    target = wheels[-1] if wheels else "kubectl-informer==" + VERSION
    steps = [python + ["-m", "venv", home],
             [venv_python(home), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", target]]
    for step in steps:
        if subprocess.call(step) != 0:
            shutil.rmtree(home, ignore_errors=True)
            return fail("installing kubectl informer failed: %s" % " ".join(step))
    return 0


def main():
    home = home_dir()
    py = venv_python(home)
    if not os.path.exists(py):
        rc = install(home)
        if rc:
            return rc
    argv = [py, "-m", "kubectl_informer"] + sys.argv[1:]
    if os.name == "nt":
        try:
            return subprocess.call(argv)
        except KeyboardInterrupt:
            return 130
    os.execv(py, argv)


if __name__ == "__main__":
    sys.exit(main())
