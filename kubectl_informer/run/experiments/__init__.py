"""Experiments from keys: provoke the machinery's behaviours on a live run
(see docs/experiments.md). ``catalog`` names them, ``control`` runs them."""

from kubectl_informer.run.experiments.catalog import (
    BY_KEY,
    BY_NAME,
    CATALOG,
    Experiment,
)
from kubectl_informer.run.experiments.control import (
    ExperimentError,
    Experiments,
    parse_count,
    parse_resync,
)

__all__ = [
    "BY_KEY",
    "BY_NAME",
    "CATALOG",
    "Experiment",
    "ExperimentError",
    "Experiments",
    "parse_count",
    "parse_resync",
]
