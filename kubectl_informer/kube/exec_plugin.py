"""Exec credential plugins (``users[].user.exec``), as client-go's exec
authenticator runs them, and never silently.

A plugin (``aws eks get-token``, ``gke-gcloud-auth-plugin``, ``kubelogin``)
prints an ``ExecCredential`` whose ``status`` holds a token or a client
certificate and key. client-go runs it before the first request, again when
``expirationTimestamp`` has passed or the server answers 401, and fails the
request with the plugin's failure when it cannot get credentials: no request
ever goes out without them. The kubernetes Python client logs the failure
and sends the request anonymously; so the plugin is run here, whichever
client then talks to the cluster.

Kept from client-go: the accepted ``apiVersion``s, ``interactiveMode``
(``Never``; ``IfAvailable``, the v1beta1 default; ``Always``, an error when
standard input is no terminal), ``KUBERNETES_EXEC_INFO``, ``env``,
``provideClusterInfo``, a token or certificate given in the kubeconfig
winning over the plugin, and the error words (``exec: executable X not
found``, ``exec: executable X failed with exit code N``, ``decoding
stdout``...). Added, where client-go writes to the terminal: the plugin's
standard error (its last lines) goes into the one-line error, since this
tool prints nothing else on failure. Added, where client-go has none: a
time bound (``KUBECTL_INFORMER_EXEC_TIMEOUT``, default 2m), after which the
plugin's whole process group is killed, as it is when the run ends or is
interrupted first: a plugin is never left behind.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from kubectl_informer.core.redact import remember
from kubectl_informer.kube.errors import KubeError, one_line
from kubectl_informer.kube.kubeconfig_types import has_control_characters

API_VERSIONS = ("client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1")
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
DEFAULT_TIMEOUT = 120.0
TIMEOUT_ENV = "KUBECTL_INFORMER_EXEC_TIMEOUT"
# An ExecCredential is a few KiB (a certificate chain at most); more is garbage.
MAX_STDOUT = 1 << 20
STDERR_TAIL = 4096


class ExecPluginError(KubeError):
    """The plugin gave no credentials; ``str()`` is client-go's line."""


class Credentials:
    def __init__(
        self, token: str | None, cert_pem: str | None, key_pem: str | None, expiry: datetime.datetime | None
    ) -> None:
        self.token, self.cert_pem, self.key_pem, self.expiry = token, cert_pem, key_pem, expiry

    def expired(self) -> bool:
        return self.expiry is not None and datetime.datetime.now(datetime.UTC) >= self.expiry


def exec_timeout() -> float:
    """The bound on one run of a plugin: ``$KUBECTL_INFORMER_EXEC_TIMEOUT``
    (a Go duration), else ``DEFAULT_TIMEOUT``."""
    text = os.environ.get(TIMEOUT_ENV)
    if not text:
        return DEFAULT_TIMEOUT
    from kubectl_informer.core.durations import parse_duration

    try:
        seconds = parse_duration(text)
    except ValueError as e:
        raise ExecPluginError(f"{TIMEOUT_ENV}: {e}") from None
    return seconds if seconds > 0 else DEFAULT_TIMEOUT


class ExecAuthenticator:
    """The plugin of one user entry: ``credentials()`` runs it when there
    are none yet or they expired; ``invalidate()`` after a 401."""

    def __init__(self, config: dict, user: str, base_dir: str, cluster: dict | None = None) -> None:
        self.user = user
        self.command = _command(config, user, base_dir)
        self.args = [str(a) for a in config.get("args") or ()]
        self.env = {str(e.get("name")): str(e.get("value") or "") for e in config.get("env") or ()}
        self.api_version = config.get("apiVersion") or ""
        if self.api_version not in API_VERSIONS:
            raise ExecPluginError(f"exec plugin: invalid apiVersion {json.dumps(self.api_version)}")
        self.interactive_mode = _interactive_mode(config, self.api_version, user)
        self.install_hint = config.get("installHint") or ""
        self.cluster = _cluster_info(cluster) if config.get("provideClusterInfo") else None
        self._lock = threading.Lock()
        self._cached: Credentials | None = None

    def credentials(self) -> Credentials:
        with self._lock:
            if self._cached is None or self._cached.expired():
                self._cached = self._run()
            return self._cached

    def invalidate(self, seen: Credentials | None = None) -> None:
        """Forget the credentials (a 401 answered them); the next request
        runs the plugin again, once, whatever requests were in flight."""
        with self._lock:
            if seen is None or seen is self._cached:
                self._cached = None

    def authorization(self) -> str | None:
        token = self.credentials().token
        return f"Bearer {token}" if token else None

    def _interactive(self) -> bool:
        if self.interactive_mode == "Never":
            return False
        tty = _stdin_is_terminal()
        if self.interactive_mode == "Always" and not tty:
            raise ExecPluginError("exec plugin cannot support interactive mode: standard input is not a terminal")
        return tty

    def _run(self) -> Credentials:
        interactive = self._interactive()
        info: dict[str, Any] = {"interactive": interactive}
        if self.cluster is not None:
            info["cluster"] = self.cluster
        env = {
            **os.environ,
            **self.env,
            "KUBERNETES_EXEC_INFO": json.dumps(
                {"apiVersion": self.api_version, "kind": "ExecCredential", "spec": info}
            ),
        }
        stdout, stderr, code = run_plugin([self.command, *self.args], env, interactive, exec_timeout(), self._not_found)
        if code != 0:
            tail = _stderr_tail(stderr)
            raise ExecPluginError(
                f"exec: executable {self.command} failed with exit code {code}" + (f": {tail}" if tail else "")
            )
        return parse_credential(stdout, self.api_version)

    def _not_found(self) -> str:
        hint = f" ({one_line(self.install_hint, 200)})" if self.install_hint else ""
        return f"exec: executable {self.command} not found{hint}"


def _command(config: dict, user: str, base_dir: str) -> str:
    command = config.get("command")
    if not command:
        raise ExecPluginError(f'command must be specified for user "{user}" to use exec authentication plugin')
    # clientcmd resolves a command holding a path separator against the
    # kubeconfig's directory; a bare name is looked up on PATH.
    if os.sep in command and not os.path.isabs(command):
        return os.path.normpath(os.path.join(base_dir, command))
    return command


def _interactive_mode(config: dict, api_version: str, user: str) -> str:
    mode = config.get("interactiveMode")
    if not mode:
        if api_version.endswith("/v1"):
            raise ExecPluginError(
                f'interactiveMode must be specified for user "{user}" to use exec authentication plugin'
            )
        return "IfAvailable"  # v1beta1's default
    if mode not in INTERACTIVE_MODES:
        raise ExecPluginError(
            f'invalid interactiveMode for user "{user}": {json.dumps(mode)} '
            f"(valid values are {', '.join(INTERACTIVE_MODES)})"
        )
    return mode


def _cluster_info(cluster: dict | None) -> dict:
    """``spec.cluster`` (client-go's ``clientauthentication.Cluster``)."""
    cluster = cluster or {}
    out: dict[str, Any] = {
        k: cluster[src]
        for k, src in (
            ("server", "server"),
            ("tls-server-name", "tls-server-name"),
            ("insecure-skip-tls-verify", "insecure-skip-tls-verify"),
            ("certificate-authority-data", "certificate-authority-data"),
            ("proxy-url", "proxy-url"),
            ("disable-compression", "disable-compression"),
        )
        if src in cluster
    }
    for ext in cluster.get("extensions") or ():
        if isinstance(ext, dict) and ext.get("name") == "client.authentication.k8s.io/exec":
            out["config"] = ext.get("extension")
    return out


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, ValueError, OSError):
        return False


def _stderr_tail(stderr: bytes) -> str:
    text = stderr[-STDERR_TAIL:].decode("utf-8", "replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return one_line(" ".join(lines[-3:]), 300)


# --- running the process ---------------------------------------------------------

_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


def run_plugin(
    argv: list[str], env: dict[str, str], interactive: bool, timeout: float, not_found: Callable[[], str]
) -> tuple[bytes, bytes, int]:
    """Run the plugin to its end: (stdout, stderr, exit code). A plugin that
    outlives ``timeout``, prints more than ``MAX_STDOUT``, or is still running
    when this is interrupted (Ctrl-C, ``--duration``) is killed with its
    process group. Interactive, it shares the terminal (standard input and
    error) so that it can prompt."""
    proc = None
    try:
        # Started inside the try: a Ctrl-C or SIGTERM that comes as soon as
        # it runs (before its guard is up) still kills it on the way out. One
        # that comes while Popen still waits for the exec would leave the
        # plugin running with ``proc`` unset: it is held until ``proc`` is.
        with _signals_held():
            proc = _start(argv, env, interactive, not_found)
            with _live_lock:
                _live.add(proc)
        with _killed_on_termination(proc, own_group=not interactive):
            out, err = _collect(proc, argv[0], timeout)
        return out, err, proc.wait()
    finally:
        if proc is not None:
            _kill(proc, own_group=not interactive)
            with _live_lock:
                _live.discard(proc)


def _start(argv: list[str], env: dict[str, str], interactive: bool, not_found: Callable[[], str]) -> subprocess.Popen:
    try:
        return subprocess.Popen(
            argv,
            env=env,
            stdin=None if interactive else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=None if interactive else subprocess.PIPE,
            start_new_session=not interactive,
        )
    except FileNotFoundError:
        raise ExecPluginError(not_found()) from None
    except OSError as e:
        raise ExecPluginError(f"exec: fork/exec {argv[0]}: {(e.strerror or str(e)).lower()}") from None


HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP only noted for the block, then handed to
    the handlers they found, in order (main thread; elsewhere no handler runs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, Any]] = []
    olds = {
        sig: signal.signal(sig, lambda signum, frame: held.append((signum, frame)))
        for sig in HELD_SIGNALS
        if signal.getsignal(sig) not in (signal.SIG_IGN, None)
    }
    try:
        yield
    finally:
        for sig, old in olds.items():
            signal.signal(sig, old)
        for signum, frame in held:
            _hand_on(olds[signal.Signals(signum)], signum, frame)


def _hand_on(handler: Any, signum: int, frame: Any) -> None:
    """Do what ``handler`` (a signal's handler before ours) would have done."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signum)


@contextlib.contextmanager
def _killed_on_termination(proc: subprocess.Popen, own_group: bool) -> Iterator[None]:
    """While the plugin runs, SIGTERM or SIGHUP first kills it (in its own
    session it gets neither), then does what it did before: the default
    action ends this process, a handler runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    olds: dict[int, Any] = {}

    def handler(signum: int, frame: Any) -> None:
        _kill(proc, own_group)
        old = olds.pop(signum)
        signal.signal(signum, old)
        _hand_on(old, signum, frame)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) != signal.SIG_IGN:
            olds[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for signum, old in olds.items():
            signal.signal(signum, old)


def _collect(proc: subprocess.Popen, name: str, timeout: float) -> tuple[bytes, bytes]:
    """Read stdout (capped) and stderr (its tail) until both close; ``name``
    is the plugin's command (its argv[0]) for the errors."""
    deadline = time.monotonic() + timeout
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            sel.register(stream, selectors.EVENT_READ)
    try:
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise ExecPluginError(
                    f"exec: executable {name} did not finish within "
                    f"{_seconds(timeout)}; it was stopped ({TIMEOUT_ENV} sets the bound)"
                )
            for key, _ in sel.select(min(left, 0.5)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.fileobj is proc.stdout:
                    out += chunk
                    if len(out) > MAX_STDOUT:
                        raise ExecPluginError(
                            f"exec: executable {name} printed more than "
                            f"{MAX_STDOUT >> 20} MiB; an ExecCredential is a few KiB"
                        )
                else:
                    err = (err + chunk)[-STDERR_TAIL:]
    finally:
        sel.close()
    wait_left = max(0.0, deadline - time.monotonic())
    try:
        proc.wait(wait_left)
    except subprocess.TimeoutExpired:
        raise ExecPluginError(
            f"exec: executable {name} closed its output but did not exit within {_seconds(timeout)}; it was stopped"
        ) from None
    return bytes(out), bytes(err)


def _seconds(t: float) -> str:
    return f"{t:g}s"


def _kill(proc: subprocess.Popen, own_group: bool) -> None:
    """End the plugin and whatever it started (its own process group),
    whether it finished or not: a plugin's helper must not outlive it."""
    if own_group:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


def kill_all() -> None:
    """Stop every plugin still running (the process is exiting)."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        _kill(proc, own_group=True)


def parse_credential(stdout: bytes, api_version: str) -> Credentials:
    """The plugin's ``ExecCredential`` checked as client-go checks it. Its
    content is never part of an error (it is the credential)."""
    try:
        cred = json.loads(stdout)
    except (ValueError, UnicodeDecodeError):
        raise ExecPluginError(
            "decoding stdout: the plugin's output is not an ExecCredential (not JSON); it is not shown"
        ) from None
    if not isinstance(cred, dict) or cred.get("kind") != "ExecCredential":
        raise ExecPluginError("decoding stdout: the plugin's output is not an ExecCredential (no kind ExecCredential)")
    if cred.get("apiVersion") != api_version:
        got = one_line(str(cred.get("apiVersion")), 80)
        raise ExecPluginError(
            f"exec plugin is configured to use API version {api_version}, plugin returned version {json.dumps(got)}"
        )
    status = cred.get("status")
    if not isinstance(status, dict):
        raise ExecPluginError("exec plugin didn't return a status field")
    token, cert, key = (status.get(k) or None for k in ("token", "clientCertificateData", "clientKeyData"))
    if any(v is not None and not isinstance(v, str) for v in (token, cert, key)):
        raise ExecPluginError("exec plugin returned a status whose token or certificate is not a string")
    if not (token or cert or key):
        raise ExecPluginError("exec plugin didn't return a token or cert/key pair")
    if bool(cert) != bool(key):
        raise ExecPluginError("exec plugin returned only certificate or key, not both")
    for secret in (token, key):
        if secret:
            remember(secret)
    if token and has_control_characters(token):
        raise ExecPluginError("exec plugin returned a token holding a control character; it is not shown")
    return Credentials(token, cert, key, _expiry(status.get("expirationTimestamp")))


def _expiry(value: Any) -> datetime.datetime | None:
    if not value:
        return None
    try:
        t = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ExecPluginError(
            f"decoding stdout: status.expirationTimestamp {json.dumps(one_line(value, 40))} is not an RFC 3339 time"
        ) from None
    return t if t.tzinfo else t.replace(tzinfo=datetime.UTC)
