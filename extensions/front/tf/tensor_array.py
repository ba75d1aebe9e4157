"""TensorFlow TensorArray (V3) and TensorList ops, translated on the array's contents.

A TensorArray is a handle plus a "flow" tensor that orders its reads and writes; a TensorList is
one variant tensor. In the converted graph the flow (the list) IS the array's contents: a tensor
whose axis 0 counts the elements (``[size, *element_shape]``). Reads are Gathers along axis 0,
writes ScatterUpdates, stacking gives the contents, unstacking makes them; the handle is not
needed (a TensorArrayV3's handle output is its size, which no converted op reads).

A new array is zeros of ``[size, *element_shape]``, which needs the element shape. Where it is
not known the two patterns that do not need it are converted before: an array filled from a
tensor (``TensorArrayScatterV3``, ``TensorArraySplitV3``) takes its element shape from that
tensor (FilledTensorArray), a list that ``TensorListPushBack`` fills from empty takes it from the
first element pushed (PushBackOntoEmptyList), and an array written at a
loop's counter is a Loop output (extensions/front/tf/control_flow_v1.py for tf.while_loop frames,
control_flow.py for functional While loops).
"""
from __future__ import annotations

import numpy as np

from extensions.load.tf.attributes import TfExtractor
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dims_slice, i64, shape_of, typed_const
from mo.pipeline.extract import framework_op_name
from mo.pipeline.transform import Transform

TENSOR_ARRAYS = ("TensorArrayV3", "TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
                 "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3", "TensorArraySizeV3",
                 "TensorArrayCloseV3")


def used(node, idx: int) -> bool:
    return idx in node.out_ports() and node.out_port(idx).is_connected()


def src(node, idx: int):
    return node.in_port(idx).get_source()


def first_dim(b, x, element_type: str = "i64"):
    """The number of elements of contents ``x`` as a 0-d tensor."""
    return b.Gather(shape_of(b, x, element_type), np.int64(0), np.int64(0))


def zeros(b, length, element_shape, element_type: str):
    """Contents of ``length`` (a 0-d port or an int) elements of ``element_shape`` (a 1-D i64
    port or a list of ints), all zero."""
    length = b.Reshape(convert(b, length, "i64"), i64(1), special_zero=False) if not isinstance(length, int) \
        else i64(length)
    element_shape = b.const(i64(*element_shape)) if isinstance(element_shape, (list, tuple)) else element_shape
    return b.Broadcast(typed_const(b, 0, element_type), b.Concat(length, element_shape, axis=0))


def known_shape(shape) -> list[int] | None:
    """A fully known element shape as a list, else None."""
    if shape is None:
        return None
    shape = [int(d) for d in np.asarray(shape).reshape(-1)]
    return None if any(d < 0 for d in shape) else shape


def set_items(b, contents, indices, items):
    """contents with element indices[j] replaced by items[j]."""
    return b.ScatterUpdate(contents, convert(b, indices, "i64"), items, np.int64(0))


def set_item(b, contents, index, item):
    return set_items(b, contents, b.Reshape(index, i64(1), special_zero=False), b.Unsqueeze(item, i64(0)))


def concat_elements(b, contents):
    """The elements joined along their axis 0, and each one's length (TensorArrayConcatV3)."""
    shape = shape_of(b, contents)
    rest = dims_slice(b, shape, 2)
    joined = b.Reshape(contents, b.Concat(i64(-1), rest, axis=0), special_zero=False)
    lengths = b.Broadcast(b.Gather(shape, np.int64(1), np.int64(0)), b.Reshape(first_dim(b, contents), i64(1),
                                                                                 special_zero=False))
    return [joined, lengths]


def fresh_contents(node, b, length, element_shape, element_type, out: int):
    """The contents of a new array, or None when its output ``out`` is not used."""
    if not used(node, out):
        return None
    shape = known_shape(element_shape)
    if shape is None:
        raise ConversionError(f"{node.fw_op} '{node.name}' has no fully known element shape and is used other "
                              f"than filled from a tensor (unstack, scatter, split) or written at a loop's counter, "
                              f"the uses converted without it; give the array an element_shape.")
    return zeros(b, length, shape, element_type)


class FilledTensorArray(Transform):
    """TensorArrayScatterV3 and TensorArraySplitV3 on a new array fill it from a tensor, which
    gives the elements' shape. Rewired before translation, so that the new array's element shape
    is not needed: a scatter at range(0, n) (a Range from 0 by 1, or constant indices 0..n-1) is
    its value; another scatter reads the array's size (its input 3, marked ``onto_new_array``)
    instead of its contents; a split does not read the array."""

    frameworks = ("tf",)
    ops = (framework_op_name("tf", "TensorArrayScatterV3"), framework_op_name("tf", "TensorArraySplitV3"))

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in graph.nodes_by_op(op):
                flow = src(node, 3)
                if flow.node.get("fw_op") != "TensorArrayV3" or flow.idx != 1:
                    continue
                if node.fw_op == "TensorArraySplitV3":
                    node.in_port(3).disconnect()
                elif self._is_iota(src(node, 1)):
                    node.out_port(0).get_connection().set_source(src(node, 2))
                    graph.remove_node(node.id)
                else:
                    node.in_port(3).disconnect()
                    src(flow.node, 0).connect(node.in_port(3))
                    node["onto_new_array"] = True

    @staticmethod
    def _is_iota(port) -> bool:
        value = port.data.get_value()
        if value is not None:
            return value.ndim == 1 and np.array_equal(value, np.arange(value.size))
        node = port.node
        if node.get("fw_op") != "Range" or len(node.in_ports()) != 3:
            return False
        start, delta = src(node, 0).data.get_value(), src(node, 2).data.get_value()
        return start is not None and delta is not None and start.size == 1 and delta.size == 1 \
            and start.reshape(-1)[0] == 0 and delta.reshape(-1)[0] == 1


class PushBackOntoEmptyList(Transform):
    """TensorListPushBack onto a new EmptyTensorList makes the list of that one element, whatever
    element shape the empty list declares (often none): the push stops reading the empty list
    (marked ``onto_empty_list``), which goes when nothing else reads it."""

    frameworks = ("tf",)
    ops = (framework_op_name("tf", "TensorListPushBack"),)

    def find_and_replace_pattern(self, graph) -> None:
        for node in graph.nodes_by_op(self.ops[0]):
            empty = src(node, 0).node
            if empty.get("fw_op") != "EmptyTensorList":
                continue
            node.in_port(0).disconnect()
            node["onto_empty_list"] = True
            if not any(p.is_connected() for p in empty.out_ports().values()):
                graph.remove_node(empty.id)


@translator("tf", "TensorArrayV3")
def tensor_array(node, b):
    size = src(node, 0)
    element_shape = TfExtractor.attr(node, "element_shape")
    return [size, fresh_contents(node, b, size, element_shape, TfExtractor.dtype(node, "dtype") or "f32", 1)]


@translator("tf", "TensorArrayReadV3")
def tensor_array_read(node, b):
    return [b.Gather(src(node, 2), src(node, 1), np.int64(0))]


@translator("tf", "TensorArrayGatherV3")
def tensor_array_gather(node, b):
    return [b.Gather(src(node, 2), src(node, 1), np.int64(0))]


@translator("tf", "TensorArrayWriteV3")
def tensor_array_write(node, b):
    return [set_item(b, src(node, 3), src(node, 1), src(node, 2))]


@translator("tf", "TensorArrayScatterV3")
def tensor_array_scatter(node, b):
    value = src(node, 2)
    contents = src(node, 3)
    if node.get("onto_new_array"):
        contents = zeros(b, contents, dims_slice(b, shape_of(b, value), 1), value.data.get_dtype())
    return [set_items(b, contents, src(node, 1), value)]


@translator("tf", "TensorArraySplitV3")
def tensor_array_split(node, b):
    """The value cut into pieces of ``lengths`` along axis 0: the array's elements all have one
    shape, so the pieces are equal."""
    return [equal_pieces(b, src(node, 1), src(node, 2))]


def equal_pieces(b, value, lengths):
    """Contents made of ``value`` cut along axis 0 into len(lengths) pieces of one length."""
    count = b.Reshape(first_dim(b, lengths), i64(1), special_zero=False)
    target = b.Concat(count, i64(-1), dims_slice(b, shape_of(b, value), 1), axis=0)
    return b.Reshape(value, target, special_zero=False)


@translator("tf", "TensorArraySizeV3")
def tensor_array_size(node, b):
    return [first_dim(b, src(node, 1), "i32")]


@translator("tf", "TensorArrayConcatV3")
def tensor_array_concat(node, b):
    return concat_elements(b, src(node, 1))


@translator("tf", "TensorArrayCloseV3")
def tensor_array_close(node, b):
    return []


# ---------------------------------------------------------------------------------- TensorLists

@translator("tf", "TensorListFromTensor")
def tensor_list_from_tensor(node, b):
    return [src(node, 0)]


@translator("tf", "TensorListStack")
def tensor_list_stack(node, b):
    return [src(node, 0)]


@translator("tf", "TensorListGetItem", "TensorListGather")
def tensor_list_get(node, b):
    return [b.Gather(src(node, 0), src(node, 1), np.int64(0))]


@translator("tf", "TensorListSetItem")
def tensor_list_set_item(node, b):
    """With ``resize_if_index_out_of_bounds`` (a dynamic-size TensorArray) a write past the end
    first grows the list."""
    contents, index = src(node, 0), src(node, 1)
    if TfExtractor.attr(node, "resize_if_index_out_of_bounds", False):
        needed = b.Add(convert(b, index, "i64"), np.int64(1))
        contents = resized(b, contents, b.Maximum(needed, first_dim(b, contents)))
    return [set_item(b, contents, index, src(node, 2))]


@translator("tf", "TensorListScatterIntoExistingList")
def tensor_list_scatter_into(node, b):
    return [set_items(b, src(node, 0), src(node, 2), src(node, 1))]


@translator("tf", "TensorListReserve")
def tensor_list_reserve(node, b):
    et = TfExtractor.dtype(node, "element_dtype") or "f32"
    return [fresh_contents(node, b, src(node, 1), src(node, 0).data.get_value(), et, 0)]


@translator("tf", "EmptyTensorList")
def empty_tensor_list(node, b):
    et = TfExtractor.dtype(node, "element_dtype") or "f32"
    return [fresh_contents(node, b, 0, src(node, 0).data.get_value(), et, 0)]


@translator("tf", "TensorListLength")
def tensor_list_length(node, b):
    return [first_dim(b, src(node, 0), "i32")]


@translator("tf", "TensorListElementShape")
def tensor_list_element_shape(node, b):
    et = TfExtractor.dtype(node, "shape_type") or "i32"
    return [dims_slice(b, shape_of(b, src(node, 0), et), 1)]


@translator("tf", "TensorListPushBack")
def tensor_list_push_back(node, b):
    if node.get("onto_empty_list"):
        return [b.Unsqueeze(src(node, 1), i64(0))]
    return [b.Concat(src(node, 0), b.Unsqueeze(src(node, 1), i64(0)), axis=0)]


@translator("tf", "TensorListResize")
def tensor_list_resize(node, b):
    """Cut to ``size`` elements, or padded with zero elements up to it."""
    return [resized(b, src(node, 0), convert(b, src(node, 1), "i64"))]


def resized(b, contents, size):
    """``contents`` cut to ``size`` (a 0-d i64 port) elements or padded with zero elements."""
    missing = b.Maximum(b.Subtract(size, first_dim(b, contents)), np.int64(0))
    padding = zeros(b, missing, dims_slice(b, shape_of(b, contents), 1), contents.data.get_dtype())
    padded = b.Concat(contents, padding, axis=0)
    return b.Slice(padded, i64(0), b.Reshape(size, i64(1), special_zero=False), i64(1), i64(0))


@translator("tf", "TensorListConcatV2", "TensorListConcat")
def tensor_list_concat(node, b):
    return concat_elements(b, src(node, 0))



@translator("tf", "TensorListPopBack")
def tensor_list_pop_back(node, b):
    """(the list without its last element, the last element)."""
    contents = src(node, 0)
    rest = b.Slice(contents, i64(0), i64(-1), i64(1), i64(0))
    return [rest, b.Gather(contents, np.int64(-1), np.int64(0))]


@translator("tf", "TensorListScatter", "TensorListScatterV2")
def tensor_list_scatter(node, b):
    """A new list with tensor[j] at indices[j]; num_elements (V2, -1: unknown) or max(indices)+1
    elements."""
    value, indices = src(node, 0), convert(b, src(node, 1), "i64")
    count = b.Add(b.ReduceMax(b.Concat(indices, i64(-1), axis=0), i64(0), keep_dims=False), np.int64(1))
    if node.fw_op == "TensorListScatterV2":
        given = convert(b, src(node, 3), "i64")
        count = b.Select(b.Less(given, np.int64(0)), count, given)
    contents = zeros(b, count, dims_slice(b, shape_of(b, value), 1), value.data.get_dtype())
    return [set_items(b, contents, indices, value)]


@translator("tf", "TensorListSplit")
def tensor_list_split(node, b):
    return [equal_pieces(b, src(node, 0), src(node, 2))]
