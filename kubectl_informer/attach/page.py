"""One scrape of a metrics page, parsed by prometheus_client's text parser.

Samples are indexed by their own name (``workqueue_adds_total``,
``workqueue_queue_duration_seconds_bucket``), not by family, so a page
without ``# TYPE`` lines reads the same as one with them.

Only the families attach shows are handed to the parser: a controller's
page is mostly Go runtime, process and REST latency histograms, and
parsing them would be most of a scrape's cost (bench/attach.py). The head
of the page is always parsed whole, so a page that is not the text format
at all is still refused by the parser, with its words.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

Labels = dict[str, str]

# Metric name prefixes attach reads; every other line is skipped unparsed.
WANTED = ("workqueue_", "controller_runtime_", "rest_client_requests_total", "reflector_", "informer_")
# kube-controller-manager 1.36's ``<controller>_stale_sync_skips_total``: a suffix, any prefix.
WANTED_SUFFIX = "_stale_sync_skips_total"
HEAD_LINES = 50


class NotPrometheusText(ValueError):
    """The body is not the Prometheus text exposition format."""


@dataclass(frozen=True)
class Histogram:
    """Cumulative bucket counts (upper bound, count), +Inf last; count; sum."""

    buckets: tuple[tuple[float, float], ...]
    count: float
    sum: float


@dataclass
class Page:
    time: float
    samples: dict[str, list[tuple[Labels, float]]] = field(default_factory=dict)
    # The API server's watch-cache RV per (group, resource), read beside this
    # page when the API server's /metrics is readable (attach.server_rv);
    # ``server_note`` says why not, when it is not.
    server_rv: dict[tuple[str, str], int] | None = None
    server_note: str | None = None

    def has(self, name: str) -> bool:
        return name in self.samples

    def by(self, name: str, key: str, fallback: str | None = None) -> dict[str, float]:
        """Values of ``name`` summed per value of label ``key`` (or of
        ``fallback`` when ``key`` is absent): controller-runtime's depth has
        a ``priority`` label whose series add up to the queue's depth."""
        out: dict[str, float] = {}
        for labels, value in self.samples.get(name, ()):
            k = labels.get(key, labels.get(fallback, "") if fallback else "")
            if not math.isnan(value):
                out[k] = out.get(k, 0.0) + value
        return out

    def by2(self, name: str, key: str, key2: str) -> dict[tuple[str, str], float]:
        out: dict[tuple[str, str], float] = {}
        for labels, value in self.samples.get(name, ()):
            k = (labels.get(key, ""), labels.get(key2, ""))
            out[k] = out.get(k, 0.0) + value
        return out

    def histograms(self, name: str, key: str) -> dict[str, Histogram]:
        """``name``'s histogram per value of label ``key`` (series that differ
        in other labels are added bucket by bucket)."""
        buckets: dict[str, dict[float, float]] = {}
        for labels, value in self.samples.get(name + "_bucket", ()):
            le = labels.get("le")
            if le is None:
                continue
            try:
                bound = float(le)
            except ValueError:
                continue
            per = buckets.setdefault(labels.get(key, ""), {})
            per[bound] = per.get(bound, 0.0) + value
        counts = self.by(name + "_count", key)
        sums = self.by(name + "_sum", key)
        return {
            k: Histogram(tuple(sorted(b.items())), counts.get(k, b.get(math.inf, 0.0)), sums.get(k, 0.0))
            for k, b in buckets.items()
        }

    def names_ending(self, suffix: str) -> list[str]:
        return sorted(n for n in self.samples if n.endswith(suffix))

    def by_labels(self, name: str, keys: tuple[str, ...]) -> dict[tuple[str, ...], float]:
        """Values of ``name`` summed per tuple of the ``keys`` labels' values."""
        out: dict[tuple[str, ...], float] = {}
        for labels, value in self.samples.get(name, ()):
            k = tuple(labels.get(key, "") for key in keys)
            if not math.isnan(value):
                out[k] = out.get(k, 0.0) + value
        return out

    def histograms_by(self, name: str, keys: tuple[str, ...]) -> dict[tuple[str, ...], Histogram]:
        """``name``'s histogram per tuple of the ``keys`` labels' values."""
        buckets: dict[tuple[str, ...], dict[float, float]] = {}
        for labels, value in self.samples.get(name + "_bucket", ()):
            try:
                bound = float(labels["le"])
            except (KeyError, ValueError):
                continue
            per = buckets.setdefault(tuple(labels.get(key, "") for key in keys), {})
            per[bound] = per.get(bound, 0.0) + value
        counts = self.by_labels(name + "_count", keys)
        sums = self.by_labels(name + "_sum", keys)
        return {
            k: Histogram(tuple(sorted(b.items())), counts.get(k, b.get(math.inf, 0.0)), sums.get(k, 0.0))
            for k, b in buckets.items()
        }


def parse_page(text: str, time: float) -> Page:
    """Parse ``text``; NotPrometheusText when it is not the text format or
    holds no sample at all (an HTML login page, a JSON Status, nothing)."""
    page = Page(time)
    lines = text.splitlines()
    head = _parse("\n".join(lines[:HEAD_LINES]) + "\n")
    if not head and not any(ln.strip() for ln in lines[HEAD_LINES:]):
        raise NotPrometheusText("the page holds no samples")
    plain, other = _plain_samples(_wanted(lines))
    for name, labels, value in plain:
        page.samples.setdefault(name, []).append((labels, value))
    for s in _parse("\n".join(other) + "\n"):
        page.samples.setdefault(s.name, []).append((s.labels, s.value))
    return page


def _wanted(lines: list[str]) -> list[str]:
    return [ln for ln in lines if _kept(ln[7:] if ln.startswith(("# HELP ", "# TYPE ")) else ln)]


# A sample line in its plainest form: no escape in a label value, no brace or
# quote inside one, an optional integer timestamp. Most of a Go process's page.
_SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^\\{}]*)\})?[ \t]+(\S+)(?:[ \t]+-?[0-9]+)?[ \t]*")
_LABEL = re.compile(r'[ \t]*([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*"([^"\\]*)"[ \t]*(?:,|$)')


def _plain_samples(lines: list[str]) -> tuple[list[tuple[str, Labels, float]], list[str]]:
    """The plain sample lines read with two regular expressions; every other
    line (HELP and TYPE aside) is left for prometheus_client's parser, which
    reads what these do not and refuses what is not the format. The parser
    walks a line a character at a time: on kube-controller-manager's 55
    informer histograms it doubled a scrape's cost."""
    plain: list[tuple[str, Labels, float]] = []
    other: list[str] = []
    for ln in lines:
        if ln.startswith("#") or not ln.strip():
            if not ln.startswith(("# HELP ", "# TYPE ")):
                other.append(ln)
            continue
        m = _SAMPLE.fullmatch(ln)
        labels = _labels(m.group(2)) if m and m.group(2) else {}
        if m is None or labels is None:
            other.append(ln)
            continue
        try:
            plain.append((m.group(1), labels, float(m.group(3))))
        except ValueError:
            other.append(ln)
    return plain, other


def _labels(text: str) -> Labels | None:
    """``a="x",b="y"`` as a dict; None unless the matches cover it all."""
    out, at = {}, 0
    for m in _LABEL.finditer(text):
        if m.start() != at:
            return None
        out[m.group(1)] = m.group(2)
        at = m.end()
    return out if at == len(text) else None


def _kept(line: str) -> bool:
    if line.startswith(WANTED):
        return True
    if WANTED_SUFFIX not in line:  # the cheap test first: most lines are neither
        return False
    name = line.split("{", 1)[0].split(" ", 1)[0]
    return name.endswith(WANTED_SUFFIX)


def _parse(text: str) -> list:
    try:
        return [s for family in text_string_to_metric_families(text) for s in family.samples]
    except (ValueError, TypeError, IndexError) as e:
        raise NotPrometheusText(str(e).splitlines()[0][:120] if str(e) else type(e).__name__) from None
