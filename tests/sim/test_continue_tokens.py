"""Continue tokens read as kube-apiserver's storage.DecodeContinue reads them:
the refused ones answer in its words (tests/sim/continue_token_answers.py,
taken from kube-apiserver v1.36.2), the ones it takes are taken."""

import pytest

from kubectl_informer.core.apierrors import ApiError
from kubectl_informer.sim.continuation import decode_continue, encode_continue
from tests.sim.continue_token_answers import REFUSED_TOKENS, raw


@pytest.mark.parametrize("token,message", REFUSED_TOKENS, ids=[repr(t) for t, _ in REFUSED_TOKENS])
def test_a_refused_token_is_answered_in_the_apiservers_words(token, message):
    with pytest.raises(ApiError) as e:
        decode_continue(token)
    assert (e.value.status, e.value.reason, e.value.message) == (400, "BadRequest", message)


@pytest.mark.parametrize(
    "token,expected",
    [
        (encode_continue(7, "default/p1"), (7, "default/p1\x00")),
        (raw('{"V":"meta.k8s.io/v1","RV":-1,"Start":"x"}'), (-1, "x")),  # field names matched regardless of case
        (raw('{"v":"x","v":"meta.k8s.io/v1","rv":-2,"start":"/a"}'), (-2, "a")),  # the last key wins
        (raw('{"v":"meta.k8s.io/v1","rv":5,"start":"x","extra":[1]}'), (5, "x")),  # unknown keys skipped
    ],
)
def test_a_token_the_apiserver_takes_is_taken(token, expected):
    assert decode_continue(token) == expected
