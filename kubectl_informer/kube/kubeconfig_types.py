"""A kubeconfig file's values checked against client-go's types.

client-go reads a kubeconfig into the structs of
``k8s.io/client-go/tools/clientcmd/api/v1`` through JSON, so a value of the
wrong kind is an error before anything is used: ``insecure-skip-tls-verify:
"false"`` is a string where a bool belongs and kubectl refuses the file
(``json: cannot unmarshal string into Go struct field
Cluster.clusters.cluster.insecure-skip-tls-verify of type bool``). Python's
YAML loader hands back whatever the file holds, and a non-empty string is
true; so every file is walked against the same types here, before any of
it is read. Unknown keys are left alone, as client-go leaves them.

The message names the field and the file, never the value (it may be a
credential).
"""

from __future__ import annotations

import base64
import binascii
import datetime
from typing import Any

# The scalar kinds, named as kubectl names them ("of type bool").
STR, BOOL, BYTES, ANY = "string", "bool", "[]byte", "any"


def _list(of: Any) -> tuple:
    return ("list", of)


def _map(of: Any) -> tuple:
    return ("map", of)


EXTENSIONS = _list({"name": STR, "extension": ANY})
EXEC = {
    "command": STR,
    "args": _list(STR),
    "env": _list({"name": STR, "value": STR}),
    "apiVersion": STR,
    "installHint": STR,
    "provideClusterInfo": BOOL,
    "interactiveMode": STR,
}
CLUSTER = {
    "server": STR,
    "tls-server-name": STR,
    "insecure-skip-tls-verify": BOOL,
    "certificate-authority": STR,
    "certificate-authority-data": BYTES,
    "proxy-url": STR,
    "disable-compression": BOOL,
    "extensions": EXTENSIONS,
}
AUTH_INFO = {
    "client-certificate": STR,
    "client-certificate-data": BYTES,
    "client-key": STR,
    "client-key-data": BYTES,
    "token": STR,
    "tokenFile": STR,
    "as": STR,
    "as-uid": STR,
    "as-groups": _list(STR),
    "as-user-extra": _map(_list(STR)),
    "username": STR,
    "password": STR,
    "auth-provider": {"name": STR, "config": _map(STR)},
    "exec": EXEC,
    "extensions": EXTENSIONS,
}
CONTEXT = {"cluster": STR, "user": STR, "namespace": STR, "extensions": EXTENSIONS}
CONFIG = {
    "kind": STR,
    "apiVersion": STR,
    "preferences": {"colors": BOOL, "extensions": EXTENSIONS},
    "clusters": _list({"name": STR, "cluster": CLUSTER}),
    "users": _list({"name": STR, "user": AUTH_INFO}),
    "contexts": _list({"name": STR, "context": CONTEXT}),
    "current-context": STR,
    "extensions": EXTENSIONS,
}

# Fields whose value is a credential: a control character there would
# reach an HTTP header (and, through Python's refusal, an error message).
CREDENTIAL_FIELDS = ("token", "password", "username")


class KubeconfigTypeError(ValueError):
    """``str()``: ``cannot unmarshal KIND into field PATH of type TYPE``."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def check_config(doc: dict) -> None:
    """Walk ``doc`` (one file) against client-go's ``Config``; raise
    KubeconfigTypeError for the first value of the wrong kind."""
    _check(doc, CONFIG, "")


def _check(value: Any, schema: Any, path: str) -> None:
    if value is None:  # JSON null: the zero value, as Go reads it
        return
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise _wrong(value, path, "struct")
        for key, sub in schema.items():
            if key in value:
                _check(value[key], sub, f"{path}.{key}" if path else key)
        return
    if isinstance(schema, tuple):
        kind, of = schema
        if kind == "list":
            if not isinstance(value, list):
                raise _wrong(value, path, f"[]{_type_name(of)}")
            for i, item in enumerate(value):
                _check(item, of, f"{path}[{i}]")
        else:
            if not isinstance(value, dict):
                raise _wrong(value, path, f"map[string]{_type_name(of)}")
            for key, item in value.items():
                _check(item, of, f"{path}[{key}]")
        return
    _check_scalar(value, schema, path)


def _check_scalar(value: Any, schema: str, path: str) -> None:
    if schema == ANY:
        return
    if schema == BOOL:
        if not isinstance(value, bool):
            raise _wrong(value, path, "bool")
        return
    if isinstance(value, (datetime.date, datetime.datetime)):
        return  # YAML 1.1 reads 2024-01-01 as a date; Go's YAML keeps the text
    if not isinstance(value, str):
        raise _wrong(value, path, schema)
    if schema == BYTES:
        try:
            base64.b64decode(value.encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise KubeconfigTypeError(f"field {path} is not valid base64 data") from None
    if path.rsplit(".", 1)[-1] in CREDENTIAL_FIELDS and has_control_characters(value):
        raise KubeconfigTypeError(f"field {path} contains a control character (a line break?); its value is not shown")


def has_control_characters(value: str) -> bool:
    """What an HTTP header may not hold: C0 controls and DEL (a tab is
    allowed in a header, but not in a token)."""
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in value)


def _type_name(schema: Any) -> str:
    if isinstance(schema, dict):
        return "struct"
    if isinstance(schema, tuple):
        return ("[]" if schema[0] == "list" else "map[string]") + _type_name(schema[1])
    return "interface {}" if schema == ANY else schema


def _wrong(value: Any, path: str, expected: str) -> KubeconfigTypeError:
    return KubeconfigTypeError(f"cannot unmarshal {_kind(value)} into field {path} of type {expected}")
