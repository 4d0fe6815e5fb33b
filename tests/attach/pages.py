"""Metric pages in the exact text form Go controllers print them.

Built from the registrations, not copied from a live process:

- CLIENT_GO: a kube-controller-manager-style page. Names, the single
  ``name`` label, the BETA stability (component-base prefixes HELP with
  "[BETA]") and the buckets ExponentialBuckets(10e-7, 10, 10) come from
  k8s.io/component-base/metrics/prometheus/workqueue/metrics.go. Bounds are
  written as client_golang writes floats (strconv 'g', shortest), so the
  products of the repeated multiplication show as 9.999999999999999e-06.
  rest_client_requests_total{code,host,method} is client-go's
  tools/metrics RequestResult as registered by component-base.
- CONTROLLER_RUNTIME: sigs.k8s.io/controller-runtime pkg/metrics/workqueue.go
  (labels ``name`` and ``controller``, depth also ``priority``; buckets
  ExponentialBuckets(10e-9, 10, 12)), pkg/internal/controller/metrics/metrics.go
  (controller_runtime_reconcile_total{controller,result} with results
  success/error/requeue/requeue_after, reconcile_errors_total,
  active_workers, max_concurrent_reconciles) and pkg/metrics/client_go_adapter.go
  (rest_client_requests_total{code,host,method}). client_golang prints
  label names sorted, ``le`` last on buckets.
- REFLECTOR: reflector_lists_total / reflector_watches_total{name}, as
  client-go's tools/cache reflector metrics provider names them when a
  process registers one (most do not).
"""

from __future__ import annotations

CB_BOUNDS = (
    "1e-06",
    "9.999999999999999e-06",
    "9.999999999999999e-05",
    "0.001",
    "0.01",
    "0.1",
    "1",
    "10",
    "100",
    "1000",
)
CR_BOUNDS = (
    "1e-08",
    "1e-07",
    "1e-06",
    "9.999999999999999e-06",
    "9.999999999999999e-05",
    "0.001",
    "0.01",
    "0.1",
    "1",
    "10",
    "100",
    "1000",
)

# The HELP texts too long for a line of this file, verbatim (client-go's, then controller-runtime's wording).
REST_REQUESTS_HELP = "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host."
CLIENT_GO_LONGEST_HELP = "[BETA] How many seconds has the longest running processor for workqueue been running."
CLIENT_GO_UNFINISHED_HELP = (
    "[BETA] How many seconds of work has done that is in progress and hasn't been observed by work_duration. "
    "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at "
    "which this increases."
)
CONTROLLER_RUNTIME_LONGEST_HELP = "How many seconds has the longest running processor for workqueue been running."
CONTROLLER_RUNTIME_UNFINISHED_HELP = (
    "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. "
    "Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at "
    "which this increases."
)


def _hist(name: str, labels: str, bounds, cumulative, total_sum: float) -> str:
    lines = []
    sep = "," if labels else ""
    for b, c in zip(bounds, cumulative, strict=True):
        lines.append(f'{name}_bucket{{{labels}{sep}le="{b}"}} {c}')
    lines.append(f'{name}_bucket{{{labels}{sep}le="+Inf"}} {cumulative[-1]}')
    lines.append(f"{name}_sum{{{labels}}} {total_sum}")
    lines.append(f"{name}_count{{{labels}}} {cumulative[-1]}")
    return "\n".join(lines)


def client_go_page(
    depth: int,
    adds: int,
    retries: int,
    latency_cum,
    work_cum,
    latency_sum=1.5,
    work_sum=2.5,
    unfinished=0.0,
    longest=0.0,
    requests_200=100,
) -> str:
    q = 'name="deployment"'
    return f"""# HELP rest_client_requests_total {REST_REQUESTS_HELP}
# TYPE rest_client_requests_total counter
rest_client_requests_total{{code="200",host="172.18.0.2:6443",method="GET"}} {requests_200}
rest_client_requests_total{{code="200",host="172.18.0.2:6443",method="PUT"}} 7
rest_client_requests_total{{code="409",host="172.18.0.2:6443",method="PUT"}} 2
# HELP workqueue_adds_total [BETA] Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{{{q}}} {adds}
workqueue_adds_total{{name="replicaset"}} 3
# HELP workqueue_depth [BETA] Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{{{q}}} {depth}
workqueue_depth{{name="replicaset"}} 0
# HELP workqueue_longest_running_processor_seconds {CLIENT_GO_LONGEST_HELP}
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{{{q}}} {longest}
# HELP workqueue_queue_duration_seconds [BETA] How long in seconds an item stays in workqueue before being requested.
# TYPE workqueue_queue_duration_seconds histogram
{_hist("workqueue_queue_duration_seconds", q, CB_BOUNDS, latency_cum, latency_sum)}
# HELP workqueue_retries_total [BETA] Total number of retries handled by workqueue
# TYPE workqueue_retries_total counter
workqueue_retries_total{{{q}}} {retries}
# HELP workqueue_unfinished_work_seconds {CLIENT_GO_UNFINISHED_HELP}
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{{{q}}} {unfinished}
# HELP workqueue_work_duration_seconds [BETA] How long in seconds processing an item from workqueue takes.
# TYPE workqueue_work_duration_seconds histogram
{_hist("workqueue_work_duration_seconds", q, CB_BOUNDS, work_cum, work_sum)}
"""


def controller_runtime_page(
    success: int,
    errors: int,
    requeue: int,
    active: int,
    depth_p0: int,
    depth_p1: int,
    adds: int,
    latency_cum,
    reflector: bool = False,
) -> str:
    c = 'controller="memcached",name="memcached"'
    zeros = [0] * len(CR_BOUNDS)
    text = f"""# HELP controller_runtime_active_workers Number of currently used workers per controller
# TYPE controller_runtime_active_workers gauge
controller_runtime_active_workers{{controller="memcached"}} {active}
# HELP controller_runtime_max_concurrent_reconciles Maximum number of concurrent reconciles per controller
# TYPE controller_runtime_max_concurrent_reconciles gauge
controller_runtime_max_concurrent_reconciles{{controller="memcached"}} 4
# HELP controller_runtime_reconcile_errors_total Total number of reconciliation errors per controller
# TYPE controller_runtime_reconcile_errors_total counter
controller_runtime_reconcile_errors_total{{controller="memcached"}} {errors}
# HELP controller_runtime_reconcile_total Total number of reconciliations per controller
# TYPE controller_runtime_reconcile_total counter
controller_runtime_reconcile_total{{controller="memcached",result="error"}} {errors}
controller_runtime_reconcile_total{{controller="memcached",result="requeue"}} {requeue}
controller_runtime_reconcile_total{{controller="memcached",result="requeue_after"}} 0
controller_runtime_reconcile_total{{controller="memcached",result="success"}} {success}
# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{{code="200",host="10.96.0.1:443",method="GET"}} 41
rest_client_requests_total{{code="201",host="10.96.0.1:443",method="POST"}} 3
# HELP workqueue_adds_total Total number of adds handled by workqueue
# TYPE workqueue_adds_total counter
workqueue_adds_total{{{c}}} {adds}
# HELP workqueue_depth Current depth of workqueue by workqueue and priority
# TYPE workqueue_depth gauge
workqueue_depth{{{c},priority=""}} {depth_p0}
workqueue_depth{{{c},priority="1"}} {depth_p1}
# HELP workqueue_longest_running_processor_seconds {CONTROLLER_RUNTIME_LONGEST_HELP}
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{{{c}}} 0.25
# HELP workqueue_queue_duration_seconds How long in seconds an item stays in workqueue before being requested
# TYPE workqueue_queue_duration_seconds histogram
{_hist("workqueue_queue_duration_seconds", c, CR_BOUNDS, latency_cum, 0.75)}
# HELP workqueue_retries_total Total number of retries handled by workqueue
# TYPE workqueue_retries_total counter
workqueue_retries_total{{{c}}} {errors}
# HELP workqueue_unfinished_work_seconds {CONTROLLER_RUNTIME_UNFINISHED_HELP}
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{{{c}}} 0.5
# HELP workqueue_work_duration_seconds How long in seconds processing an item from workqueue takes.
# TYPE workqueue_work_duration_seconds histogram
{_hist("workqueue_work_duration_seconds", c, CR_BOUNDS, zeros, 0)}
"""
    if reflector:
        text += """# HELP reflector_lists_total Total number of API lists done by the reflectors
# TYPE reflector_lists_total counter
reflector_lists_total{name="sigs.k8s.io/controller-runtime/pkg/cache/internal/informers.go:106"} 2
# HELP reflector_watches_total Total number of API watches done by the reflectors
# TYPE reflector_watches_total counter
reflector_watches_total{name="sigs.k8s.io/controller-runtime/pkg/cache/internal/informers.go:106"} 5
"""
    return text


# kube-controller-manager's workqueues, named as its controllers register
# them (the ``Name`` of each controller's rate-limiting queue config).
KCM_QUEUES = (
    "ClusterRoleAggregator",
    "DynamicCABundle-client-ca-bundle",
    "DynamicCABundle-csr-controller",
    "DynamicCABundle-request-header",
    "DynamicServingCertificateController",
    "bootstrap_signer_queue",
    "certificate",
    "claims",
    "cronjob",
    "daemonset",
    "deployment",
    "disruption",
    "disruption_recheck",
    "endpoint",
    "endpoint_slice",
    "endpoint_slice_mirroring",
    "ephemeral_volume",
    "garbage_collector_attempt_to_delete",
    "garbage_collector_attempt_to_orphan",
    "garbage_collector_graph_changes",
    "horizontalpodautoscaler",
    "job",
    "job_orphan_pod",
    "namespace",
    "node_lifecycle_controller",
    "node_lifecycle_controller_pods",
    "noexec_taint_node",
    "noexec_taint_pod",
    "orphaned_pods_nodes",
    "pvcprotection",
    "pvcs",
    "pvprotection",
    "replicaset",
    "replicationmanager",
    "resource_claim",
    "resourcequota_primary",
    "resourcequota_priority",
    "root_ca_cert_publisher",
    "service",
    "serviceaccount",
    "serviceaccount_tokens_secret",
    "serviceaccount_tokens_service",
    "stale_pod_disruption",
    "statefulset",
    "token_cleaner",
    "ttl_jobs_to_delete",
    "ttlcontroller",
    "volume_expand",
    "volumes",
    "validatingadmissionpolicy-status",
)
# name: (adds per scrape, depth, retries per scrape, work bucket index): the
# busy queues of a rollout; every other queue is idle. Work bucket 6 is
# (0.1s, 1s]: a reconcile of 200ms lands there, and histogram_quantile puts
# p50 at 550ms, which the screen must call an estimate.
KCM_ACTIVITY = {
    "deployment": (40, 25, 2, 6),
    "replicaset": (60, 12, 0, 5),
    "namespace": (5, 30, 1, 7),
    "endpoint_slice": (20, 0, 0, 4),
    "garbage_collector_graph_changes": (80, 3, 0, 3),
    "endpoint": (18, 0, 0, 4),
    "job": (0, 0, 3, 6),
}


def controller_manager_page(scrape: int) -> str:
    """kube-controller-manager's workqueue families after ``scrape`` scrapes
    (counters grow with it), as component-base prints them: [BETA] help,
    one ``name`` label, label values sorted."""
    fams: dict[str, list[str]] = {
        f: []
        for f in (
            "workqueue_adds_total",
            "workqueue_depth",
            "workqueue_longest_running_processor_seconds",
            "workqueue_queue_duration_seconds",
            "workqueue_retries_total",
            "workqueue_unfinished_work_seconds",
            "workqueue_work_duration_seconds",
        )
    }
    for name in sorted(KCM_QUEUES):
        adds, depth, retries, work_bucket = KCM_ACTIVITY.get(name, (0, 0, 0, 4))
        done = 3 + adds * scrape  # a few at start-up, then the rate
        q = f'name="{name}"'
        fams["workqueue_adds_total"].append(f"workqueue_adds_total{{{q}}} {done + depth}")
        fams["workqueue_depth"].append(f"workqueue_depth{{{q}}} {depth}")
        fams["workqueue_longest_running_processor_seconds"].append(
            f"workqueue_longest_running_processor_seconds{{{q}}} {0.2 if adds else 0}"
        )
        fams["workqueue_retries_total"].append(f"workqueue_retries_total{{{q}}} {retries * scrape}")
        fams["workqueue_unfinished_work_seconds"].append(f"workqueue_unfinished_work_seconds{{{q}}} 0")
        latency = [0] * 4 + [done] * 6  # every wait in (1ms, 10ms]
        work = [0] * work_bucket + [done] * (10 - work_bucket)
        fams["workqueue_queue_duration_seconds"].append(
            _hist("workqueue_queue_duration_seconds", q, CB_BOUNDS, latency, done * 0.0005)
        )
        fams["workqueue_work_duration_seconds"].append(
            _hist("workqueue_work_duration_seconds", q, CB_BOUNDS, work, done * 0.2)
        )
    kinds = {
        "workqueue_depth": "gauge",
        "workqueue_queue_duration_seconds": "histogram",
        "workqueue_work_duration_seconds": "histogram",
        "workqueue_unfinished_work_seconds": "gauge",
        "workqueue_longest_running_processor_seconds": "gauge",
    }
    out = []
    for fam, lines in fams.items():
        out.append(f"# HELP {fam} [BETA] {fam.replace('_', ' ')}")
        out.append(f"# TYPE {fam} {kinds.get(fam, 'counter')}")
        out.extend(lines)
    return "\n".join(out) + "\n"


# --- recorded, not built: the lab's kube-controller-manager v1.36.2 -------------------------
# Two pages 5 s apart (the comment line at the top of each says how they were made): 55
# informers with client-go 1.36's informer_queued_items and informer_processing_latency_seconds
# (no informer_store_resource_version: the factory gives its informers no metrics provider of
# their own), 50 workqueues and replicaset_controller_stale_sync_skips_total.
KCM_SECONDS_APART = 5.0


def kcm_pages() -> tuple[str, str]:
    import pathlib

    here = pathlib.Path(__file__).parent / "fixtures"
    return tuple((here / f"kcm-v1.36.2-page{i}.txt").read_text(encoding="utf-8") for i in (1, 2))


def store_rv_lines(rvs: dict[tuple[str, str, str], int], name: str = "kube-controller-manager") -> str:
    """informer_store_resource_version as component-base writes it (labels
    sorted), for (group, version, resource) -> RV: what a 1.36 process whose
    informers were given a metrics provider serves."""
    lines = [
        "# HELP informer_store_resource_version [ALPHA] The 15 least significant digits of the resource "
        "version of the store.",
        "# TYPE informer_store_resource_version gauge",
    ]
    for (group, version, resource), rv in rvs.items():
        assert rv < 10**6, "Go's %g writes 1e6 and above as 1.234567e+06: keep these plain"
        lines.append(
            f'informer_store_resource_version{{group="{group}",name="{name}",resource="{resource}",'
            f'version="{version}"}} {rv}'
        )
    return "\n".join(lines) + "\n"
