"""mo/pipeline/convert.py: what a conversion leaves behind in the process."""
import gc

import pytest

from mo import convert_model
from mo.errors import InputModelError
from mo.pipeline.convert import collections_deferred
from tests.utils.onnx_models import conv_relu_model


def test_the_collector_runs_rarely_during_a_conversion_and_as_before_after_it():
    seen = []
    before = gc.get_threshold()
    collections_deferred(lambda: seen.append(gc.get_threshold()))()
    assert seen[0][0] > 10 * before[0] and gc.get_threshold() == before
    convert_model(conv_relu_model())
    with pytest.raises(InputModelError):
        convert_model("no_such_model.onnx")
    assert gc.get_threshold() == before

