# bench/ship.py measures the archive the packaging tests install: the same
# session-wide build (one per session, shared by xdist workers behind a lock).
from tests.packaging.conftest import krew_build  # noqa: F401 - the fixture
