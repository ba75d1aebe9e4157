"""PyTorch's type promotion as the lowerings compute it, checked against torch.result_type."""
import itertools

import pytest
import torch

from extensions.front.pytorch.aten import promote_types, result_type
from tests.utils.graphs import new_graph

TYPES = {"boolean": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
         "i64": torch.int64, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16}


@pytest.mark.parametrize("x, y", list(itertools.combinations_with_replacement(TYPES, 2)))
def test_promote_types(x, y):
    expected = torch.promote_types(TYPES[x], TYPES[y])
    assert TYPES[promote_types(x, y)] == expected


def _port(b, et, rank):
    return b.Parameter(shape=(2,) * rank, element_type=et)


@pytest.mark.parametrize("tensor, other, other_kind", [
    ("i32", "f32", "number"), ("f16", "f32", "number"), ("u8", "i64", "number"), ("boolean", "i64", "number"),
    ("i64", "f64", "zero-dim"), ("f16", "f64", "zero-dim"), ("i8", "i64", "zero-dim"), ("i32", "f16", "tensor"),
    ("boolean", "boolean", "number"), ("f32", "boolean", "number")])
def test_result_type(tensor, other, other_kind):
    _, b = new_graph(data_form=True)
    x = _port(b, tensor, 1)
    y = _port(b, other, 0 if other_kind != "tensor" else 1)
    reference_other = {"number": {"f32": 1.5, "f64": 1.5, "i64": 3, "boolean": True}.get(other),
                       "zero-dim": torch.ones((), dtype=TYPES[other]),
                       "tensor": torch.ones(2, dtype=TYPES[other])}[other_kind]
    expected = torch.result_type(torch.ones(2, dtype=TYPES[tensor]), reference_other)
    assert TYPES[result_type([(x, False), (y, other_kind == "number")])] == expected
