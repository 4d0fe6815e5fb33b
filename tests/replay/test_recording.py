import gzip

import pytest

from kubectl_informer.core.trace import TraceEvent
from kubectl_informer.replay.recording import RecordingError, info_from_recording, read_recording

from .helpers import WALL, ndjson, story, v1_lines


def write(tmp_path, text, name="rec.ndjson"):
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def test_the_header_says_what_was_recorded(tmp_path):
    rec = read_recording(write(tmp_path, ndjson(story())))
    assert rec.header["resource"] == "pods" and rec.header["args"][:2] == ["watch", "pods"]
    info = info_from_recording(rec)
    assert (info.resource, info.namespace, info.profile, info.fifo, info.initial_list, info.resync_period) == (
        "pods",
        "default",
        "1.36",
        "DeltaFIFO",
        "paged LIST",
        3.0,
    )  # informer.start says what actually ran
    assert info.context == "kind-dev" and info.replay.endswith("rec.ndjson")
    assert rec.wall_time(4.0) == WALL + 4.0
    assert rec.duration == 10.0 and rec.offset(len(rec.events) - 1) == 10.0


def test_an_old_recording_without_header_or_v_still_replays(tmp_path):
    rec = read_recording(write(tmp_path, v1_lines(story())))
    assert rec.header is None and rec.wall_time(0.0) is None and rec.wall_clock(1.0) is None
    info = info_from_recording(rec)
    assert info.resource == "(replay)" and info.fifo == "DeltaFIFO" and info.resync_period == 3.0
    # version 1 said 410 only in prose: upgraded on reading, so the seek finds it.
    kinds = [rec.events[i].kind for i in rec.marks()]
    assert kinds == ["watch.end", "relist", "store.delete"]


def test_a_cut_last_line_is_a_warning_not_an_error(tmp_path):
    text = ndjson(story())
    path = write(tmp_path, text[:-25])  # the run was killed mid-write
    rec = read_recording(path)
    assert len(rec.events) == len(story()) - 1
    assert rec.warnings == [
        f"{path} line {len(story())}: the last line is cut mid-event (the recording was "
        "interrupted); replaying the events before it"
    ]
    gz = tmp_path / "rec.gz"
    later = "".join(
        ndjson(TraceEvent(ev.seq, ev.time + 20 * i, ev.kind, ev.key, ev.fields) for ev in story()) for i in range(40)
    )  # forty runs of the story, one after the other
    gz.write_bytes(gzip.compress(later.encode())[:-30])
    rec = read_recording(str(gz))
    assert rec.events and "ends early" in rec.warnings[0]


def test_a_bad_line_inside_is_still_an_error(tmp_path):
    lines = ndjson(story()).splitlines(keepends=True)
    path = write(tmp_path, "".join(lines[:3] + ["not json\n"] + lines[3:]))
    with pytest.raises(RecordingError, match=r" line 4: not a trace event"):
        read_recording(path)
    # A bad last line that ends with a newline was written whole: not a cut.
    with pytest.raises(RecordingError, match="not a trace event"):
        read_recording(write(tmp_path, "".join(lines) + "garbage\n"))
    with pytest.raises(RecordingError, match="no trace events"):
        read_recording(write(tmp_path, "\n\n"))


def test_a_compressed_recording_closes_its_file_once_read(tmp_path):
    """GzipFile does not close a file object it is handed: the file under a
    compressed recording is closed by the reader itself, after a read, a scan,
    a stream and a read stopped early at the cap."""
    import gc
    import warnings

    from kubectl_informer.replay.recording import scan_recording, stream_recording

    gz = tmp_path / "rec.gz"
    gz.write_bytes(gzip.compress(ndjson(story()).encode()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert len(read_recording(str(gz)).events) == len(story())
        assert scan_recording(str(gz)).events == len(story())
        assert len(list(stream_recording(str(gz)))) == len(story())
        assert len(read_recording(str(gz), max_events=2).events) == 2
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
