"""What a run is, for the UI's header and help: set once, before the UI
starts, by the run (or by ``replay`` from a recording's first events).

Plain data (its defaults are the default profile's), so the CLI and the lifecycle name it without
importing the UI (Textual), and the UI gets it without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_informer.core.profiles import DEFAULT_PROFILE


@dataclass
class RunInfo:
    """What the run is, for headers and help: set once by the CLI."""

    resource: str = "pods"
    namespace: str | None = "default"  # None: all namespaces
    context: str = ""
    server: str = ""
    profile: str = DEFAULT_PROFILE.client_go  # --client-go
    fifo: str = DEFAULT_PROFILE.fifo_label  # profiles.fifo_label
    initial_list: str = DEFAULT_PROFILE.initial_list_label  # profiles.initial_list_label
    resync_period: float = 0.0  # seconds, as asked
    label_selector: str | None = None
    field_selector: str | None = None
    demo_scenario: str | None = None
    mode: str = "watch"  # "watch" | "queue"
    workers: int = 0  # queue: the controller's workers
    metadata_only: bool = False  # --metadata-only: the cache holds PartialObjectMetadata
    show_secret_data: bool = False  # the YAML view shows Secret values
    args: tuple[str, ...] = ()  # the command line, for a recording's header
    replay: str | None = None  # the recording replayed, if this is a replay
    tls_verify: bool = True  # False: insecure-skip-tls-verify, the header says so
    # Several informers (queue --owns, watch deploy,rs,pods): their resources,
    # the queue's first; () for one informer.
    informers: tuple[str, ...] = ()
    queue_resource: str | None = None  # several informers: whose keys the workqueue holds
