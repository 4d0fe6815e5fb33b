from kubectl_informer.core.apierrors import ApiError, is_expired, is_too_large_resource_version, is_too_many_requests


def test_status_round_trip_keeps_causes_and_retry_after():
    st = {
        "kind": "Status",
        "code": 504,
        "reason": "Timeout",
        "message": "Too large resource version: 9, current: 5",
        "details": {
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        },
    }
    err = ApiError.from_status(st)
    assert err.status == 504 and err.retry_after == 1.0
    assert is_too_large_resource_version(err)
    again = ApiError.from_status(err.to_status())
    assert (again.status, again.reason, again.details) == (err.status, err.reason, err.details)


def test_classifiers():
    assert is_expired(ApiError(410, "Expired", "too old resource version: 1 (5)"))
    assert is_expired(ApiError(500, "Expired", ""))
    assert not is_expired(ApiError(500, "InternalError", "boom"))
    assert is_too_many_requests(ApiError(429, "TooManyRequests", "slow down"))
    assert not is_too_large_resource_version(ApiError(500, "InternalError", "boom"))
    # As client-go's reflector: without the cause, only a timeout saying so is one.
    assert is_too_large_resource_version(ApiError(504, "Timeout", "Too large resource version: 12"))
    assert is_too_large_resource_version(
        ApiError(504, "Timeout", "Timeout", [{"message": "Too large resource version"}])
    )
    assert not is_too_large_resource_version(ApiError(500, "", "Too large resource version: 12"))
    assert not is_expired(ConnectionRefusedError())
