"""The simulated API server: a real HTTP server on loopback, its object store and
watch cache, the controllers and scenarios the demos run.

May import ``cache``, ``workqueue``, ``core`` and ``clock``; never ``kube`` (the client side)."""
