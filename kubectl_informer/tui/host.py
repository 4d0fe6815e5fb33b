"""What a pane asks of the app it is mounted in, typed.

``InformerApp`` (tui/app.py) mounts the panes and imports their modules, so
they cannot import it back at run time (tests/test_layers.py: no cycles). They
name it by what they call instead: ``InformerHost``, which it offers, and
``informer_host``, the pane's ``app`` checked at run time to offer it (a pane
mounted in another app gets a TypeError saying so).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.dom import DOMNode


class InformerSteps(Protocol):
    """The app's informer choice (tui/informers.py's ``InformerChoice``)."""

    def step(self, step: int, *, wrap: bool = True) -> bool: ...


@runtime_checkable
class InformerHost(Protocol):
    """What the panes' bindings call on ``InformerApp``."""

    @property
    def informer_choice(self) -> InformerSteps: ...

    def activate(self, name: str) -> None: ...

    def action_inspect(self) -> None: ...


def informer_host(node: DOMNode) -> InformerHost:
    """``node``'s app as an ``InformerHost``; a TypeError in another app
    (a binding that moves between panes has nothing to move in a one-pane app)."""
    app = node.app
    if not isinstance(app, InformerHost):
        raise TypeError(f"{type(app).__name__} is not an InformerApp: it has no panes to move between")
    return app
