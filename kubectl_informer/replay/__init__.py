"""``kubectl informer replay``: a recording played back in time.

``recording`` reads the NDJSON a run wrote (``--record`` or ``-o json``),
``player`` moves through it on a clock (speed, pause, step, seek),
``run`` is what the CLI calls for the UI and the headless outputs.
"""
