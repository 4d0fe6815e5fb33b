"""The simulated cluster's controllers: Deployment, ReplicaSet, the pods'
scheduler and kubelet, and the garbage collector, as kube-controller-manager
runs them, so everyday kubectl (create/scale/rollout/delete a Deployment)
behaves against the simulator as on a cluster.

``manager.ControllerManager(store, clock)`` listens to the store's committed events
(``store.listeners``) and works them off in one thread: an event only queues
keys (a Deployment's, its ReplicaSet's, the owner a dependent points at); the
worker reconciles each queued key once however many events named it, as a
workqueue does. Timed steps (a pod starting ``pod_start_seconds`` after it
is scheduled) wait on the manager's clock, a FakeClock in tests.

They record the Events the real components do (``events`` of each sync).

The controllers act only on Deployments, ReplicaSets and what those own
or adopt: a pod whose ReplicaSet does not exist (the pods the scenarios and
the demo's seed make) is never touched, though a real garbage collector
would delete it.

Modules: ``manager`` (feed, queue, worker), ``deployments``,
``deployment_sync``, ``deployment_status`` and ``revisions`` (the Deployment
controller), ``replicasets``, ``expectations`` and ``podorder`` (the
ReplicaSet controller), ``rollout`` (the Deployment controller's
arithmetic, pure), ``pods`` (scheduler and kubelet), ``gc`` (garbage
collector), ``owners`` (ownerReference helpers and adoption). Their Events
go through client-go's correlator (``sim.event_correlator``).
"""
