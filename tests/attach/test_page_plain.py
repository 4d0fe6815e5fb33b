"""attach's page reader reads plain sample lines itself and leaves the rest
to prometheus_client's parser: whatever the lines, the samples are the
parser's own (the recorded kube-controller-manager page, and generated
lines with escapes, braces, timestamps, odd values)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from kubectl_informer.attach.page import parse_page

from .pages import kcm_pages


def parsers_samples(text: str, leave_out: str = "") -> dict:
    """name -> its samples, in an order of their own (the reader's order
    within a name is not the page's: nothing it computes depends on it)."""
    out: dict = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name != leave_out:
                out.setdefault(s.name, []).append((s.labels, s.value))
    return _ordered(out)


def _ordered(samples: dict) -> dict:
    return {name: sorted(v, key=repr) for name, v in samples.items()}


def test_the_recorded_kcm_page_reads_as_the_parser_reads_it():
    text = kcm_pages()[1]
    # kubernetes_build_info (the version, kept in the fixture) is not a family attach reads.
    assert _ordered(parse_page(text, 0.0).samples) == parsers_samples(text, leave_out="kubernetes_build_info")


NAMES = st.sampled_from(["workqueue_depth", "informer_queued_items", "replicaset_controller_stale_sync_skips_total"])
VALUES = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.floats(allow_nan=False).map(repr),
    st.sampled_from(["+Inf", "-Inf", "1e-08", "9.999999999999999e-06", "0"]),
)
LABEL_VALUE = st.text(alphabet='ab{}=," \\\n', max_size=6).map(
    lambda s: s.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            NAMES,
            st.dictionaries(st.sampled_from(["name", "group", "le"]), LABEL_VALUE, max_size=3),
            VALUES,
            st.sampled_from(["", " 1700000000000"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_sample_lines_read_as_the_parser_reads_them(samples):
    lines = []
    for name, labels, value, stamp in samples:
        body = ",".join(f'{k}="{v}"' for k, v in labels.items())
        lines.append(f"{name}{{{body}}} {value}{stamp}" if labels else f"{name} {value}{stamp}")
    text = "\n".join(lines) + "\n"
    assert _ordered(parse_page(text, 0.0).samples) == parsers_samples(text)
