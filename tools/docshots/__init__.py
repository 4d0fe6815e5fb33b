"""Screenshots for docs/, rendered by the app itself.

``python -m tools.docshots`` runs every shot of ``registry.SHOTS``:
the real pipeline against the simulated cluster (``--demo SCENARIO``) under
the real app in Textual's headless ``run_test``, waits for the trace to show
what the shot is about, presses the shot's keys and saves Textual's own SVG
under ``docs/screenshots/``. Add a shot by appending a ``Shot`` to ``SHOTS``.
"""
