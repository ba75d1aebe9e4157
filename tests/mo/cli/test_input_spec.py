"""Parsing of --input, --input_shape, --output."""
import numpy as np
import pytest

from mo.cli.input_spec import parse_input, parse_input_shape, parse_output
from mo.errors import OptionError


def test_names_shapes_and_types():
    specs = parse_input("x[1,3,224,224]{f32},mask[1,?],ids[2 -1]{int64}")
    assert [(s.name, s.shape, s.element_type) for s in specs] == [
        ("x", (1, 3, 224, 224), "f32"), ("mask", (1, -1), None), ("ids", (2, -1), "i64")]


def test_name_only_and_scalar_shape():
    specs = parse_input("a,b[]")
    assert specs[0].shape is None and specs[1].shape == ()


def test_frozen_value():
    (spec,) = parse_input("x[2]->[1.0,2.0]")
    np.testing.assert_array_equal(spec.value, [1.0, 2.0])
    (flag,) = parse_input("is_training->False")
    assert flag.value.item() is False


def test_python_list_form():
    specs = parse_input([("x", [1, 3]), "y[2]"])
    assert specs[0].shape == (1, 3) and specs[1].shape == (2,)


def test_python_list_form_dynamic_dims():
    """-1, None, '?', 'a..b' and dimension objects (torch.export.Dim: a name, min and max) are
    dynamic; the objects are kept for the loader."""
    class Dim:
        __name__, min, max = "batch", 1, 8

    batch = Dim()
    (spec,) = parse_input([("x", [batch, None, "?", "1..8", -1, 3])])
    assert spec.shape == (-1, -1, -1, -1, -1, 3) and spec.extra == {"dims": {0: batch}}
    with pytest.raises(OptionError, match="Malformed dimension"):
        parse_input([("x", [object()])])


@pytest.mark.parametrize("text", ["x[1,a]", "x[1,3", "x{f33}", "x[1],,y", "x]["])
def test_malformed_input_is_an_option_error(text):
    with pytest.raises(OptionError):
        parse_input(text)


def test_input_shape_forms():
    assert parse_input_shape("[1,3,224,224],[1,10]") == [(1, 3, 224, 224), (1, 10)]
    assert parse_input_shape("(1,?)") == [(1, -1)]
    assert parse_input_shape([1, 3]) == [(1, 3)]
    assert parse_input_shape([[1, 3], [2]]) == [(1, 3), (2,)]


def test_output_names():
    assert parse_output("a, b:1") == ["a", "b:1"]
    with pytest.raises(OptionError):
        parse_output("a,,b")
