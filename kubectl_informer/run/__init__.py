"""One run: resolve its config, connect, build the pipeline, threads, signals,
restarts, experiments, the sample controller, handler lanes, transforms.

Imports kube, sim, cache, workqueue, core, clock.
"""
