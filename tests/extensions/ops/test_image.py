"""ExtractImagePatches' evaluate against patches read position by position."""
import numpy as np
import pytest

from tests.utils.graphs import infer_op


@pytest.mark.parametrize("auto_pad", ["valid", "same_upper", "same_lower"])
def test_extract_image_patches(auto_pad):
    x = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6) + 1
    sizes, strides, rates = (2, 3), (2, 1), (1, 2)
    (out,) = infer_op("ExtractImagePatches", x, sizes=list(sizes), strides=list(strides), rates=list(rates),
                      auto_pad=auto_pad)
    value = out.data.get_value()
    eff = [(k - 1) * r + 1 for k, r in zip(sizes, rates)]
    if auto_pad == "valid":
        shape, begin = [(d - e) // s + 1 for d, e, s in zip(x.shape[2:], eff, strides)], [0, 0]
    else:
        shape = [-(-d // s) for d, s in zip(x.shape[2:], strides)]
        total = [max((o - 1) * s + e - d, 0) for o, s, e, d in zip(shape, strides, eff, x.shape[2:])]
        begin = [t // 2 if auto_pad == "same_upper" else t - t // 2 for t in total]
    expected = np.zeros((2, sizes[0] * sizes[1] * 3, *shape), np.float32)
    for n in range(2):
        for oy in range(shape[0]):
            for ox in range(shape[1]):
                for i in range(sizes[0]):
                    for j in range(sizes[1]):
                        for c in range(3):
                            y, xx = oy * strides[0] + i * rates[0] - begin[0], ox * strides[1] + j * rates[1] - begin[1]
                            inside = 0 <= y < x.shape[2] and 0 <= xx < x.shape[3]
                            expected[n, (i * sizes[1] + j) * 3 + c, oy, ox] = x[n, c, y, xx] if inside else 0
    np.testing.assert_array_equal(value, expected)
