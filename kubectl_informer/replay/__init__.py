"""``kubectl informer replay``: a recording played back in time.

``recording`` reads the NDJSON a run wrote (``--record`` or ``-o json``),
``player`` moves through it on a clock (speed, pause, step, seek),
(``cli.replay`` is what the command runs, for the UI and the headless outputs.)

May import ``run``, ``core`` and below; the drawing is ``tui.replay``.
"""
