"""TensorFlow random ops: RandomUniform, RandomUniformInt and Multinomial, as OpenVINO's
RandomUniform-8 and Multinomial-13 with TensorFlow's ``seed`` and ``seed2`` as the global and
op seeds. The IR draws from the same distributions as TensorFlow, not the same values."""
from __future__ import annotations

from extensions.load.tf.attributes import TfExtractor
from mo.front.translator import translator
from mo.graph.building import input_sources, typed_const


def _seeds(node) -> dict:
    return {"global_seed": max(int(TfExtractor.attr(node, "seed", 0)), 0),
            "op_seed": max(int(TfExtractor.attr(node, "seed2", 0)), 0)}


@translator("tf", "RandomUniform")
def random_uniform(node, b):
    """RandomUniform(shape): values uniform in [0, 1) of ``dtype``."""
    dtype = TfExtractor.dtype(node, "dtype") or "f32"
    shape = node.in_port(0).get_source()
    return [b.RandomUniform(shape, typed_const(b, 0, dtype), typed_const(b, 1, dtype), output_type=dtype,
                            **_seeds(node))]


@translator("tf", "RandomUniformInt")
def random_uniform_int(node, b):
    """RandomUniformInt(shape, minval, maxval): integers uniform in [minval, maxval)."""
    shape, low, high = input_sources(node)
    return [b.RandomUniform(shape, low, high, output_type=low.data.get_dtype(), **_seeds(node))]


@translator("tf", "Multinomial")
def multinomial(node, b):
    """Multinomial(logits [batch, classes], num_samples): class indices drawn with replacement
    from the softmax of each row, of ``output_dtype``."""
    logits, count = input_sources(node)
    return [b.Multinomial(logits, count, convert_type=TfExtractor.dtype(node, "output_dtype") or "i64",
                          with_replacement=True, log_probs=True, **_seeds(node))]
