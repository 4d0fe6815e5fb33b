"""Paged lists in the simulated API server: continue tokens and one page.

A token carries the list's resourceVersion and the last key served, as
kube-apiserver's etcd3 store encodes it; a token older than the history
answers 410 with kube-apiserver's wording and a fresh token to go on with.
"""

from __future__ import annotations

import base64

import orjson

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.watchcache import (
    Entry,
)

INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the first chunk "
    "was returned and now may show up in the list."
)


def encode_continue(rv: int, start_key: str) -> str:
    # The shape of apiserver's continueToken: {"v","rv","start"}, base64 (URL-safe).
    raw = orjson.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start_key + "\x00"})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str) -> tuple[int, str]:
    try:
        pad = "=" * (-len(token) % 4)
        data = orjson.loads(base64.urlsafe_b64decode(token + pad))
        if data.get("v") != "meta.k8s.io/v1":
            raise ValueError("incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
        rv = int(data["rv"])
        start = str(data["start"])
        if rv == 0:
            raise ValueError("incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    except ValueError as e:
        raise ApiError(400, "BadRequest", f"continue key is not valid: {e}") from None
    except Exception:  # noqa: BLE001  any decoding failure is the apiserver's 400
        raise ApiError(400, "BadRequest", "continue key is not valid: incorrect encoding") from None
    return rv, start


def page_of(
    keys: list[str], objects: dict[str, Entry], label_match, field_match, limit: int, at: int
) -> tuple[list[Entry], int, str, int | None]:
    """The selected entries of ``keys``, at most ``limit`` (0: all), with the
    continue token and remainingItemCount of a paged list."""
    if label_match is None and field_match is None and not limit:
        return [objects[k] for k in keys], at, "", None
    entries: list[Entry] = []
    cont = ""
    remaining = None
    for i, k in enumerate(keys):
        e = objects[k]
        if label_match is not None and not label_match(e.labels):
            continue
        if field_match is not None and not field_match(e.fields):
            continue
        if limit and len(entries) == limit:
            cont = encode_continue(at, entries[-1].key)
            if label_match is None and field_match is None:
                remaining = len(keys) - i
            break
        entries.append(e)
    return entries, at, cont, remaining


class ExpiredContinue(ApiError):
    """410 for a compacted continue token; the Status carries a fresh token."""

    def __init__(self, token: str):
        super().__init__(410, "Expired", INCONSISTENT_CONTINUE)
        self.continue_token = token

    def to_status(self) -> dict:
        st = super().to_status()
        st["metadata"] = {"continue": self.continue_token}
        return st
