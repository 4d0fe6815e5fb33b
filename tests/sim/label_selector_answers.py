# ruff: noqa: E501  (the server's messages, kept whole as it sent them)
"""Label selectors and kube-apiserver's answers to them: status and Status
message of ``GET /api/v1/namespaces/default/pods?labelSelector=...``, each
taken from kube-apiserver v1.36.2 (the lab). The simulator's parser must
give the same (tests/sim/test_selectors.py; tests/lab/test_selectors_lab.py
asks both servers again)."""

KEY_RULE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
VALUE_RULE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
SUBDOMAIN_RULE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

# (selector, HTTP status, Status message or None for a 200 list)
LAB_ANSWERS: list[tuple[str, int, str | None]] = [
    ("app=web", 200, None),
    ("app!=web", 200, None),
    ("app in (web,db)", 200, None),
    ("app notin (web, db)", 200, None),
    ("!tier", 200, None),
    ("n>2", 200, None),
    ("in in (in,notin)", 200, None),
    ("a in ()", 200, None),
    ("a=", 200, None),
    ("example.com/app=x", 200, None),
    ("  a = b  ", 200, None),
    ("a in (b,,c)", 200, None),
    (" ", 200, None),
    ("a<1,b>2,c in (x),!d,e", 200, None),
    ("a===b", 400, "unable to parse requirement: found '=', expected: identifier"),
    ("a in (b", 400, "unable to parse requirement: found '', expected: ',' or ')'"),
    ("a$", 400, 'unable to parse requirement: <nil>: Invalid value: "a$": name part ' + KEY_RULE),
    ("a=b=c", 400, "found '=', expected: ',' or 'end of string'"),
    ("=x", 400, "found '=', expected: !, identifier, or 'end of string'"),
    (
        "n>x",
        400,
        "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    ("a,,b", 400, "found ',', expected: identifier after ','"),
    ("a,", 400, "found '', expected: identifier after ','"),
    ("a b", 400, "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("a in b", 400, "unable to parse requirement: found 'b' expected: '('"),
    ("a in (=)", 400, "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
    ("a in (b c)", 400, "unable to parse requirement: found 'c', expected: ',' or ')'"),
    ("a=-x", 400, 'unable to parse requirement: values[0][a]: Invalid value: "-x": ' + VALUE_RULE),
    ("/a", 400, 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'),
    (
        "a/b/c",
        400,
        'unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key '
        + KEY_RULE
        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ),
    ("A.B/c", 400, 'unable to parse requirement: <nil>: Invalid value: "A.B/c": prefix part ' + SUBDOMAIN_RULE),
    ("!a=b", 400, "found '=', expected: ',' or 'end of string'"),
    (
        "n<",
        400,
        "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    (
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        400,
        'unable to parse requirement: <nil>: Invalid value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": name part must be no more than 63 bytes',
    ),
    (
        "a in (-x,-y)",
        400,
        'unable to parse requirement: [values[0][a]: Invalid value: "-x": '
        + VALUE_RULE
        + ", values[1][a]: Invalid value: \"-y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]",
    ),
    ("a in (,=)", 400, "unable to parse requirement: found '=', expected: ',', or identifier"),
    ("(", 400, "found '(', expected: !, identifier, or 'end of string'"),
    ("a)", 400, "unable to parse requirement: found ')', expected: in, notin, =, ==, !=, gt, lt"),
    (
        "n>99999999999999999999",
        400,
        "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer",
    ),
    ("a=b\x00c", 400, "found 'c', expected: ',' or 'end of string'"),
    ("\x00a", 200, None),
    ("ä=b", 400, 'unable to parse requirement: <nil>: Invalid value: "ä": name part ' + KEY_RULE),
    ("a IN (b)", 400, "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt"),
    ("!", 400, "unable to parse requirement: found '', expected: identifier"),
    ("a notin", 400, "unable to parse requirement: found '' expected: '('"),
    ("a in (b))", 400, "found ')', expected: ',' or 'end of string'"),
    ('a="x"', 400, 'unable to parse requirement: values[0][a]: Invalid value: "\\"x\\"": ' + VALUE_RULE),
    ("a\x07b=c", 400, 'unable to parse requirement: <nil>: Invalid value: "a\\ab": name part ' + KEY_RULE),
    ("a=\x0b", 400, 'unable to parse requirement: values[0][a]: Invalid value: "\\v": ' + VALUE_RULE),
    ("é\u200b=x", 400, 'unable to parse requirement: <nil>: Invalid value: "é\\u200b": name part ' + KEY_RULE),
]
