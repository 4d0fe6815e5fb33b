# ruff: noqa: E501  (the server's messages, kept whole as it sent them)
"""Continue tokens kube-apiserver refuses, and its messages: each taken from
kube-apiserver v1.36.2 (the lab) answering ``GET /api/v1/namespaces/default/pods?limit=1&continue=...``
with 400: ``(token, message)``."""

import base64


def raw(text: str) -> str:
    """The token of ``text`` as kube-apiserver writes one (base64.RawURLEncoding)."""
    return base64.urlsafe_b64encode(text.encode("latin-1")).decode().rstrip("=")


REFUSED_TOKENS: list[tuple[str, str]] = [
    (
        "garbage",
        "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value",
    ),
    ("a", "invalid continue token: continue key is not valid: illegal base64 data at input byte 0"),
    ("a=b", "invalid continue token: continue key is not valid: illegal base64 data at input byte 1"),
    ("YQ==", "invalid continue token: continue key is not valid: illegal base64 data at input byte 2"),
    ("Zm9v+/", "invalid continue token: continue key is not valid: illegal base64 data at input byte 4"),
    (
        "Zm9v\nYQ",
        "invalid continue token: continue key is not valid: invalid character 'o' in literal false (expecting 'a')",
    ),
    (
        "Zm9vYQ\r\n",
        "invalid continue token: continue key is not valid: invalid character 'o' in literal false (expecting 'a')",
    ),
    ("ab", "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value"),
    (raw("{"), "invalid continue token: continue key is not valid: unexpected end of JSON input"),
    (raw("  "), "invalid continue token: continue key is not valid: unexpected end of JSON input"),
    (raw("{}"), "invalid continue token: continue key is not valid: server does not recognize this encoded version "),
    (raw("null"), "invalid continue token: continue key is not valid: server does not recognize this encoded version "),
    (
        raw("[]"),
        "invalid continue token: continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken",
    ),
    (
        raw("1"),
        "invalid continue token: continue key is not valid: json: cannot unmarshal number into Go value of type storage.continueToken",
    ),
    (
        raw('"x"'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal string into Go value of type storage.continueToken",
    ),
    (
        raw('{"v":1}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string",
    ),
    (
        raw('{"v":"meta.k8s.io/v1"}'),
        "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    ),
    (
        raw('{"v":"meta.k8s.io/v1","rv":5}'),
        "invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)",
    ),
    (
        raw('{"v":"meta.k8s.io/v1","rv":"5","start":"x"}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
    ),
    (
        raw('{"v":"meta.k8s.io/v1","rv":1.5,"start":"x"}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64",
    ),
    (
        raw('{"rv":9223372036854775808}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal number 9223372036854775808 into Go struct field continueToken.rv of type int64",
    ),
    (
        raw('{"v":"meta.k8s.io/v2","rv":5,"start":"x"}'),
        "invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2",
    ),
    (raw('{"v":"meta.k8s.io/v1","rv":-1,"start":"../x"}'), "invalid continue token: continue key is not valid: ../x"),
    (raw('{"v":"meta.k8s.io/v1","rv":-1,"start":"a//b"}'), "invalid continue token: continue key is not valid: a//b"),
    (
        raw('{"v":"a"} x'),
        "invalid continue token: continue key is not valid: invalid character 'x' after top-level value",
    ),
    (
        raw("{x}"),
        "invalid continue token: continue key is not valid: invalid character 'x' looking for beginning of object key string",
    ),
    (
        raw('{"v":}'),
        "invalid continue token: continue key is not valid: invalid character '}' looking for beginning of value",
    ),
    (
        raw("tru"),
        "invalid continue token: continue key is not valid: invalid character ' ' in literal true (expecting 'e')",
    ),
    (
        raw('{"a":1 "b":2}'),
        "invalid continue token: continue key is not valid: invalid character '\"' after object key:value pair",
    ),
    (raw("[1 2]"), "invalid continue token: continue key is not valid: invalid character '2' after array element"),
    (raw('{"a"}'), "invalid continue token: continue key is not valid: invalid character '}' after object key"),
    (
        raw('"\\u12"'),
        "invalid continue token: continue key is not valid: invalid character '\"' in \\u hexadecimal character escape",
    ),
    (
        raw('{"v":"\\x"}'),
        "invalid continue token: continue key is not valid: invalid character 'x' in string escape code",
    ),
    (
        raw('{"v":"a\x01"}'),
        "invalid continue token: continue key is not valid: invalid character '\\x01' in string literal",
    ),
    (raw("-"), "invalid continue token: continue key is not valid: invalid character ' ' in numeric literal"),
    (
        raw("1e"),
        "invalid continue token: continue key is not valid: invalid character ' ' in exponent of numeric literal",
    ),
    (
        raw("1."),
        "invalid continue token: continue key is not valid: invalid character ' ' after decimal point in numeric literal",
    ),
    (raw("01"), "invalid continue token: continue key is not valid: invalid character '1' after top-level value"),
    (
        raw('{"v":2,"rv":"x"}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string",
    ),
    (
        raw('{"v":"ÿ"}'),
        "invalid continue token: continue key is not valid: server does not recognize this encoded version �",
    ),
    (
        raw('{"rv":{}}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal object into Go struct field continueToken.rv of type int64",
    ),
    (
        raw('{"v":true}'),
        "invalid continue token: continue key is not valid: json: cannot unmarshal bool into Go struct field continueToken.v of type string",
    ),
    (
        raw('{"v":"a\x07"}'),
        "invalid continue token: continue key is not valid: invalid character '\\a' in string literal",
    ),
]
