"""The in-memory weights stream of convert_model(output_dir=None)."""
import numpy as np

from mo.pipeline.weights_buffer import WeightsBuffer


def test_bytes_written_come_back_in_order_as_a_writable_view():
    buffer = WeightsBuffer(64)
    values = np.arange(6, dtype=np.float32)
    assert buffer.write(b"abc") == 3
    assert buffer.write(memoryview(values).cast("B")) == values.nbytes
    data = buffer.getbuffer()
    assert data == b"abc" + values.tobytes() and not data.readonly
    assert np.frombuffer(data, np.uint8).ctypes.data % 4096 == 0   # the map starts on a page


def test_writing_past_the_capacity_grows_the_buffer():
    buffer = WeightsBuffer(4)
    chunks = [bytes([i]) * (3 + i) for i in range(5)]
    for chunk in chunks:
        buffer.write(chunk)
    assert buffer.getbuffer() == b"".join(chunks)


def test_no_weights():
    assert len(WeightsBuffer(0).getbuffer()) == 0
