"""``kubectl informer attach``: a running controller's workqueues, live.

- ``target``: what TARGET names (a URL, ``pod/NAME[:PORT]``, ``deploy/NAME[:PORT]``)
- ``scrape``: one GET of the metrics page, straight or through the API
  server's ``pods/proxy`` subresource, with one-line errors
- ``page``: the page parsed by prometheus_client's text parser
- ``quantile``: p50/p99 from histogram buckets, as Prometheus computes them
- ``model``: per-queue and per-controller figures, rates and history
- ``exporter``: the other side, our own ``queue --metrics-addr``

This package imports no UI; ``tui/attach.py`` draws the model.

May import ``run``, ``kube``, ``core`` and below; the drawing is ``tui.attach``.
"""
