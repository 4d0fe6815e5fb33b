# ruff: noqa: E501  (the server's bodies, kept whole as it sent them)
"""Query parameters that are not UTF-8, not well escaped or not numbers, and
kube-apiserver's answers: ``GET /api/v1/namespaces/default/pods?QUERY`` (QUERY
sent as written here), its status and its whole body (None for a 200 list),
taken from kube-apiserver v1.36.2 (the lab). Go's ``url.ParseQuery`` keeps a
value's bytes, ``%q`` prints one that is not UTF-8 as ``\\xff``, and the JSON
encoder writes such a byte ``\\ufffd`` (``<``, ``>`` and ``&`` as ``\\u003c``...).
The simulator must send the same bytes (tests/sim/test_query_bytes.py;
tests/lab/test_selectors_lab.py asks both servers again)."""

# (query, HTTP status, Status body or None)
LAB_ANSWERS: list[tuple[str, int, bytes | None]] = [
    (
        "labelSelector=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\\\\xff\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%3D%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: values[0][a]: Invalid value: \\"\\\\xff\\": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%ff%3Db",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"a\\\\xff\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a+in+(%ff)",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: values[0][a]: Invalid value: \\"\\\\xff\\": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "fieldSelector=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid selector: \'\\ufffd\'; can\'t understand \'\\ufffd\'","reason":"BadRequest","code":400}\n',
    ),
    ("fieldSelector=metadata.name%3D%ff", 200, None),
    (
        "fieldSelector=%ff%3Dx",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not supported: \\ufffd","reason":"BadRequest","code":400}\n',
    ),
    (
        "resourceVersion=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: resourceVersion: Invalid value: \\"\\\\xff\\": strconv.ParseUint: parsing \\"\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "resourceVersion=1%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: resourceVersion: Invalid value: \\"1\\\\xff\\": strconv.ParseUint: parsing \\"1\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "continue=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid continue token: continue key is not valid: illegal base64 data at input byte 0","reason":"BadRequest","code":400}\n',
    ),
    (
        "limit=1&continue=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid continue token: continue key is not valid: illegal base64 data at input byte 0","reason":"BadRequest","code":400}\n',
    ),
    (
        "limit=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "timeoutSeconds=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "resourceVersion=%ff&resourceVersionMatch=NotOlderThan",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid resource version: resourceVersion: Invalid value: \\"\\\\xff\\": strconv.ParseUint: parsing \\"\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "resourceVersionMatch=%ff",
        422,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \\"\\" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: \\"\\\\ufffd\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"]","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"},{"reason":"FieldValueNotSupported","message":"Unsupported value: \\"\\\\ufffd\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"","field":"resourceVersionMatch"}]},"code":422}\n',
    ),
    (
        "labelSelector=%c3%a9",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\xc3\xa9\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=%e2%82",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\\\\xe2\\\\x82\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%00b",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt","reason":"BadRequest","code":400}\n',
    ),
    ("labelSelector=%zz", 200, None),
    (
        "labelSelector=a%3Db%ff%fe",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: values[0][a]: Invalid value: \\"b\\\\xff\\\\xfe\\": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')","reason":"BadRequest","code":400}\n',
    ),
    ("labelSelector=a;b", 200, None),
    (
        "labelSelector=a%3Bb",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"a;b\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=%zz&labelSelector=a$",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"a$\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    ("labelSelector=%f", 200, None),
    ("labelSelector=%", 200, None),
    (
        "labelSelector=b$&labelSelector=a$",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"b$\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "label%53elector=a$",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"a$\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a+b",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%20b",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt","reason":"BadRequest","code":400}\n',
    ),
    ("labelSelector=a$=%zz", 200, None),
    ("labelSelector", 200, None),
    (
        "labelSelector=a$&&x",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"a$\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "timeoutSeconds=x",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"x\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "timeoutSeconds=%ff&watch=1",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"\\\\xff\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    ("fieldSelector=metadata.name%3D%ff%3Bx", 200, None),
    (
        "resourceVersionMatch=x",
        422,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \\"\\" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: \\"x\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"]","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"},{"reason":"FieldValueNotSupported","message":"Unsupported value: \\"x\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"","field":"resourceVersionMatch"}]},"code":422}\n',
    ),
    (
        "resourceVersion=1&resourceVersionMatch=%ff",
        422,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \\"\\" is invalid: resourceVersionMatch: Unsupported value: \\"\\\\ufffd\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \\"\\\\ufffd\\": supported values: \\"Exact\\", \\"NotOlderThan\\", \\"\\"","field":"resourceVersionMatch"}]},"code":422}\n',
    ),
    (
        "limit=%ff%fe",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"\\\\xff\\\\xfe\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%00%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: found \'\\ufffd\', expected: in, notin, =, ==, !=, gt, lt","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=%e2%80%a8",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\\\\u2028\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=%7f",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\\\\x7f\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=%ed%a0%80",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: \\u003cnil\\u003e: Invalid value: \\"\\\\xed\\\\xa0\\\\x80\\": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')","reason":"BadRequest","code":400}\n',
    ),
    (
        "labelSelector=a%3D%3Cb%3E%26",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"unable to parse requirement: found \'\\u003c\', expected: identifier","reason":"BadRequest","code":400}\n',
    ),
    (
        "limit=x&timeoutSeconds=y",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"y\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "limit=x&labelSelector=a$",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"x\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "timeoutSeconds=y&fieldSelector=%ff",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"y\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    (
        "timeoutSeconds=y&resourceVersion=x",
        400,
        b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseInt: parsing \\"y\\": invalid syntax","reason":"BadRequest","code":400}\n',
    ),
    ("timeoutSeconds=-5", 200, None),
]
