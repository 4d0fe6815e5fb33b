"""The credentials this process holds, so that no line it prints can show one.

The kubeconfig's reader ``remember``s every credential it hands to a client
(a token, a tokenFile's content, a basic-auth password, an exec plugin's
token); whatever is printed about a failure -- the ``error:`` line, the
``--debug`` traceback, a crash log -- goes through ``redact`` first. This is
the last guard: the first is never to put a credential into a message at all
(a token that could not be an HTTP header is refused before it is sent,
without being shown).

A URL's userinfo (``http://user:password@host``, a kubeconfig's ``server``,
an ``attach`` URL) is a credential too, of any length: ``redact_url`` shows
such a URL as ``http://<redacted>@host``, and ``redact`` does the same to
every URL inside a text.
"""

from __future__ import annotations

import re
import threading

REDACTED = "<redacted>"
# Shorter values would match ordinary words; no real credential is this short.
MIN_LENGTH = 6
# A process holds a handful (one user, a plugin's rotations): bounded all the same.
MAX_REMEMBERED = 64

_secrets: list[str] = []
_lock = threading.Lock()


def remember(secret: object) -> None:
    """Hide ``secret`` (a str or bytes) from every later ``redact``."""
    if isinstance(secret, bytes):
        secret = secret.decode("utf-8", "replace")
    if not isinstance(secret, str):
        return
    forms = {secret, secret.strip()}
    # A value may reach an error in Python's repr (b'Bearer ...' in ValueError's text).
    forms |= {repr(f)[1:-1] for f in list(forms)}
    with _lock:
        for form in forms:
            if len(form) >= MIN_LENGTH and form not in _secrets:
                _secrets.append(form)
        del _secrets[:-MAX_REMEMBERED]
        _secrets.sort(key=len, reverse=True)  # the longest first: a value that holds another


# scheme://USERINFO@ : the userinfo runs to the last "@" before the path,
# query or fragment, as a URL parser splits it (urllib's urlsplit, Go's url.Parse).
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@")


def redact_url(url: str) -> str:
    """``url`` with its userinfo (user and password) shown as ``<redacted>``;
    a URL without one is returned as is."""
    if "@" not in url:
        return url
    return _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", url)


def redact(text: str) -> str:
    """``text`` with every remembered credential, and every URL's userinfo,
    replaced by ``<redacted>``."""
    with _lock:
        secrets = list(_secrets)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return redact_url(text)


def forget_all() -> None:
    """For tests: an empty registry."""
    with _lock:
        _secrets.clear()
