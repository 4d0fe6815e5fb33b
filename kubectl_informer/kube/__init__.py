"""Real cluster access: kubeconfig (``config``), name resolution through
discovery (``discovery``), raw JSON list/watch (``listwatch``, over ``rest``,
with big-list decoding in ``decode``) and one-line errors (``errors``).
See docs/clusters.md.

May import ``cache``, ``workqueue``, ``core`` and ``clock``; never ``sim``.
"""
