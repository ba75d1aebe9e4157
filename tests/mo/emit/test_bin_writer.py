"""The .bin writer: values converted to the stored type chunk by chunk, de-duplication by stored
values, and the release of pages of memory-mapped weights."""
import io
import mmap

import numpy as np
import pytest

import mo.emit.bin_writer as bin_writer
from mo.emit.bin_writer import BinWriter, release_pages


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(bin_writer, "CHUNK_BYTES", 64)    # 32 f16 or 16 f32 values per chunk


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_f32_values_stored_as_f16_are_converted_chunk_by_chunk(small_chunks, layout):
    """An f16 constant holding float32 values (fp16 compression) is written as
    ``value.astype(float16)`` would be, whatever the layout of the array."""
    rng = np.random.default_rng(0)
    value = (rng.standard_normal((37, 23)) * 100).astype(np.float32)
    value = {"contiguous": value, "transposed": value.T, "strided": value[::2, 1::3]}[layout]
    stream = io.BytesIO()
    writer = BinWriter(stream)
    assert writer.add(value, "f16") == (0, value.size * 2)
    assert stream.getvalue() == value.astype(np.float16).tobytes()
    assert writer.add(value, "f32") == (value.size * 2, value.size * 4)
    assert stream.getvalue()[value.size * 2:] == np.ascontiguousarray(value).tobytes()


def test_dedup_compares_stored_values(small_chunks):
    """Constants are the same when their stored values are: a float32 array kept for f16 and the
    float16 array it rounds to share bytes; float32 values that differ in f16 do not."""
    rng = np.random.default_rng(1)
    wide = rng.standard_normal(100).astype(np.float32)
    writer = BinWriter(io.BytesIO())
    first = writer.add(wide, "f16")
    assert writer.add(wide.astype(np.float16), "f16") == first
    nudged = wide.copy()
    nudged[50] = np.nextafter(nudged[50], np.float32(10))      # same float16, other float32
    assert writer.add(nudged, "f16") == first
    other = wide.copy()
    other[50] += 1.0
    assert writer.add(other, "f16") != first
    assert writer.add(wide, "f32") != first                  # another element type


def _mapping_rss_kib(address: int) -> int:
    """Resident KiB of the mapping of this process that contains ``address``."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                low, high = (int(x, 16) for x in head.split("-"))
                inside = low <= address < high
            elif inside and head == "Rss:":
                return int(line.split()[1])
    raise AssertionError("no mapping holds the address")


@pytest.mark.skipif(not hasattr(mmap, "MADV_DONTNEED"), reason="no madvise(MADV_DONTNEED)")
def test_release_pages_of_a_mapped_view_keeps_its_values(tmp_path):
    data = np.random.default_rng(2).standard_normal(1 << 20).astype(np.float32)
    path = tmp_path / "w.bin"
    data.tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r", offset=4096, shape=(data.size - 1024,)).reshape(-1, 1024)
    total = float(mapped.sum())          # reads every page
    start = mapped.ctypes.data
    assert _mapping_rss_kib(start) >= mapped.nbytes // 1024
    release_pages(mapped)
    assert _mapping_rss_kib(start) == 0
    assert float(mapped.sum()) == total  # read again from the page cache
    np.testing.assert_array_equal(mapped[-1], data[-1024:])


def test_release_pages_leaves_other_memory_alone(tmp_path):
    """An array in the process's own memory and a copy-on-write mapping are not touched (dropping
    their pages would lose their data)."""
    own = np.arange(1 << 18, dtype=np.float32)
    release_pages(own)
    np.testing.assert_array_equal(own, np.arange(1 << 18, dtype=np.float32))
    path = tmp_path / "w.bin"
    own.tofile(path)
    private = np.memmap(path, dtype=np.float32, mode="c")
    private[:] = 7
    release_pages(private)
    assert (private == 7).all()


def test_strings_are_packed_as_openvino_stores_them():
    """A string constant: its count, count + 1 offsets and the UTF-8 characters (the layout
    OpenVINO's own serializer writes; the TensorFlow table tests run such IRs), and an equal one
    is written once."""
    value = np.array([["ab", ""], ["é", "xyz"]], object)
    stream = io.BytesIO()
    writer = BinWriter(stream)
    offset, size = writer.add(value, "string")
    data = stream.getvalue()
    assert (offset, size) == (0, len(data))
    assert np.frombuffer(data[:24], np.int32).tolist() == [4, 0, 2, 2, 4, 7]
    assert data[24:] == "abéxyz".encode()
    assert writer.add(value.copy(), "string") == (offset, size)
