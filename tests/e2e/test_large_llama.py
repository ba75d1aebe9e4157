"""Peak memory of converting a transformers checkpoint folder, measured on whole conversions in
child processes (the benchmark's builder, at a few hundred MiB)."""
import sys

import pytest

from benchmarks.convert_large_llama import measure_mo

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="rusage units and page release are Linux's")

MIB = 2 ** 20


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
def test_peak_memory_of_a_checkpoint_folder_stays_near_the_interpreter_baseline(tmp_path, dtype):
    """The model is captured with meta parameters and its weights are views of the mapped
    safetensors files, streamed to .bin (f32 compressed to f16 chunk by chunk) with their pages
    released: ~300 MiB of weights raise the peak by a small fraction of that over a ~16 MiB
    checkpoint (the interpreter with torch and transformers is ~430 MiB of both)."""
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    _, small = measure_mo(16, str(tmp_path / "small"), dtype=dtype)
    weights, large = measure_mo(320, str(tmp_path / "large"), dtype=dtype)
    assert weights > 300 * MIB
    growth = large.peak - small.peak
    assert growth < 0.25 * weights, (f"peak RSS {large.peak / MIB:.0f} MiB for {weights / MIB:.0f} MiB of weights, "
                                     f"{small.peak / MIB:.0f} MiB for a tiny checkpoint")
    assert (tmp_path / "large" / "out" / "openvino_model.xml").exists()     # the name LLM clients look for
