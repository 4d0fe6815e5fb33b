"""The API server's current resource version per resource, from its ``/metrics``.

kube-apiserver's watch cache exports ``apiserver_watch_cache_resource_version``
(k8s.io/apiserver ``pkg/storage/cacher/metrics``): the RV the cache of each
resource has reached, its 15 least significant digits, as the informers'
``informer_store_resource_version`` is. From 1.34 its labels are ``group``
and ``resource``; before, one ``resource`` label ("pods",
"deployments.apps"), read here as the same pair. A resource whose watch
cache is off has no series (and so no lag is shown for its informers).

One GET of the non-resource URL ``/metrics`` with the plugin's kubeconfig
(RBAC ``nonResourceURLs: ["/metrics"], verbs: ["get"]``); only the lines of
this family are kept as the body arrives (kube/apiserver_metrics.py).
A failure is one line, shown; the next scrape tries again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from kubectl_informer.attach.page import Page
from kubectl_informer.kube.apiserver_metrics import ACCEPT_TEXT, METRICS_PATH, METRICS_RULE, RESOURCE_VERSION
from kubectl_informer.kube.errors import one_line
from kubectl_informer.kube.limits import MAX_METRICS_BODY


def resource_versions(lines: Iterable[str]) -> dict[tuple[str, str], int]:
    """(group, resource) -> RV from the page's lines (only this family's are
    looked at). ValueError when they are not the Prometheus text format."""
    from prometheus_client.parser import text_string_to_metric_families

    kept = [ln for ln in lines if ln.startswith(RESOURCE_VERSION)]
    out: dict[tuple[str, str], int] = {}
    for family in text_string_to_metric_families("\n".join(kept) + "\n"):
        for s in family.samples:
            if s.name != RESOURCE_VERSION or not math.isfinite(s.value):
                continue
            if "group" in s.labels:
                key = (s.labels["group"], s.labels.get("resource", ""))
            else:  # before 1.34: "deployments.apps"
                resource, _, group = s.labels.get("resource", "").partition(".")
                key = (group, resource)
            out[key] = int(s.value)
    return out


class ServerRV:
    """Reads the API server's RVs beside each scrape of the controller's page."""

    def __init__(self, api_client: Any) -> None:
        self.api_client = api_client

    def read(self) -> tuple[dict[tuple[str, str], int] | None, str | None]:
        """(RVs, None), or (None, why not) in one line."""
        from kubectl_informer.core.apierrors import ApiError
        from kubectl_informer.kube.apiserver_metrics import kept_lines
        from kubectl_informer.kube.limits import TooLargeError
        from kubectl_informer.kube.rest import get_body

        try:
            with get_body(
                self.api_client,
                METRICS_PATH,
                accept=ACCEPT_TEXT,
                max_bytes=MAX_METRICS_BODY,
                what="the API server's metrics page",
            ) as pieces:
                rvs = resource_versions(kept_lines(pieces))
        except ApiError as e:
            if e.status == 403:
                return None, f"the API server's /metrics is forbidden to you ({METRICS_RULE}): no lag shown"
            return None, f"the API server's /metrics answered {e.status}: {one_line(e.message or e.reason, 120)}"
        except (OSError, TooLargeError, ValueError) as e:
            return None, f"the API server's /metrics could not be read: {one_line(str(e) or type(e).__name__, 120)}"
        if not rvs:
            return None, f"the API server's /metrics has no {RESOURCE_VERSION} (watch cache off?): no lag shown"
        return rvs, None

    def annotate(self, page: Page) -> Page:
        page.server_rv, page.server_note = self.read()
        return page
