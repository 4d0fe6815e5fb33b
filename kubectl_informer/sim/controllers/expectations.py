"""What a ReplicaSet sync waits for before it creates or deletes again
(pkg/controller/controller_utils.go): ``UIDTrackingControllerExpectations``
— after asking for N pods a ReplicaSet does not manage its replicas again
until N pod adds were observed (``CreationObserved``) and each pod it deleted
was seen going (``DeletionObserved``, by pod key), or five minutes passed
(``ExpectationsTimeout``) — and ``slowStartBatch``, which makes the pods in
batches of 1, 2, 4, … and stops at the first batch with a failure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from kubectl_informer.clock import Clock, RealClock

EXPECTATIONS_TIMEOUT = 300.0  # ExpectationsTimeout
SLOW_START_INITIAL_BATCH_SIZE = 1  # SlowStartInitialBatchSize
BURST_REPLICAS = 500  # the ReplicaSet controller's burstReplicas (kube-controller-manager's default)


@dataclass
class _Expected:
    add: int
    dele: int
    at: float
    keys: set[str] = field(default_factory=set)  # the pods whose deletion is awaited


class ControllerExpectations:
    """Per controller key (``namespace/name``): the creations and deletions
    still to be observed. Thread-safe: the feed observes, the worker expects."""

    def __init__(self, clock: Clock | None = None):
        self.clock = clock or RealClock()
        self._lock = threading.Lock()
        self._by_key: dict[str, _Expected] = {}

    def satisfied(self, key: str) -> bool:
        """SatisfiedExpectations: none recorded, all observed, or expired."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is None:
                return True
            return (exp.add <= 0 and exp.dele <= 0) or self.clock.now() - exp.at > EXPECTATIONS_TIMEOUT

    def expect_creations(self, key: str, n: int) -> None:
        """ExpectCreations: replaces what was expected (SetExpectations)."""
        with self._lock:
            self._by_key[key] = _Expected(n, 0, self.clock.now())

    def expect_deletions(self, key: str, pod_keys: list[str]) -> None:
        """UIDTrackingControllerExpectations.ExpectDeletions: these pods' deletions."""
        with self._lock:
            self._by_key[key] = _Expected(0, len(set(pod_keys)), self.clock.now(), set(pod_keys))

    def creation_observed(self, key: str) -> None:
        """CreationObserved (LowerExpectations by one add)."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is not None:
                exp.add -= 1

    def deletion_observed(self, key: str, pod_key: str) -> None:
        """DeletionObserved: counts only a pod we asked to delete, once."""
        with self._lock:
            exp = self._by_key.get(key)
            if exp is not None and pod_key in exp.keys:
                exp.keys.discard(pod_key)
                exp.dele -= 1

    def delete(self, key: str) -> None:
        """DeleteExpectations: the ReplicaSet is gone."""
        with self._lock:
            self._by_key.pop(key, None)

    def get(self, key: str) -> tuple[int, int] | None:
        """(adds, deletes) still expected, or None."""
        with self._lock:
            exp = self._by_key.get(key)
            return None if exp is None else (exp.add, exp.dele)


def slow_start_batch(count: int, initial: int, fn: Callable[[], None]) -> tuple[int, Exception | None]:
    """slowStartBatch: call ``fn`` ``count`` times in batches of ``initial``,
    then twice the last, …; a batch with a failure ends it. Returns the
    successes and the first error (None if every call succeeded). The
    calls of one batch run one after another here (Go runs them at once)."""
    remaining, successes = count, 0
    batch = min(remaining, initial)
    while batch > 0:
        errors = []
        for _ in range(batch):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - any failure ends the batch, as an error does in Go
                errors.append(e)
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None
