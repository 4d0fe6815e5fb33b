"""Test doubles for ``cache/``, kept out of the engine as client-go keeps
``tools/cache/testing``: tests, the e2e test and the benchmarks import them."""
