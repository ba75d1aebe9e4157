"""Memory and time at scale, measured on whole conversions in child processes (the benchmarks'
builders, at small sizes).

Peak memory comes from the kernel's rusage of the child (``os.wait4``: the same figure as
getrusage(RUSAGE_CHILDREN) in a process that has no other children; a pytest worker has had
others). Time is CPU time (user + system) of the child: on a shared machine wall time says more
about the neighbours than about the converter.
"""
import sys

import pytest

from benchmarks.convert_large_onnx import measure_mo
from benchmarks.convert_op_chain import measure_mo as measure_chain

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="rusage units and page release are Linux's")

MIB = 2 ** 20


@pytest.mark.parametrize("fp16", [True, False], ids=["fp16", "f32"])
def test_peak_memory_of_external_weights_stays_well_below_their_size(tmp_path, fp16):
    """Weights are views of the mapped data file, streamed to .bin (converted to f16 chunk by
    chunk when compressing) and their pages released once read: converting ~64 MiB of weights
    raises the peak by a fraction of that over converting ~1 MiB (before: +1.7x with fp16
    compression, +1.0x without)."""
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    _, small = measure_mo(1, str(tmp_path / "small"), fp16)
    weights, large = measure_mo(64, str(tmp_path / "large"), fp16)
    assert weights > 60 * MIB
    growth = large.peak - small.peak
    assert growth < 0.5 * weights, (f"peak RSS {large.peak / MIB:.0f} MiB for {weights / MIB:.0f} MiB of weights, "
                                    f"{small.peak / MIB:.0f} MiB for a tiny model")


def test_chain_conversion_time_grows_linearly(tmp_path):
    """Twice the ops take about twice the time (start-up, measured on a 10-op chain, taken off):
    no pass walks the whole graph per node."""
    base = measure_chain(10, str(tmp_path), repeat=2)[1]
    t2k = measure_chain(2000, str(tmp_path), repeat=2)[1] - base
    t4k = measure_chain(4000, str(tmp_path), repeat=2)[1] - base
    assert t4k / t2k < 2.6, f"2000 ops: {t2k:.2f} s, 4000 ops: {t4k:.2f} s of CPU beyond start-up"
