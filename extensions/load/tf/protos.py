"""A light GraphDef reader that does not import TensorFlow.

Importing TensorFlow takes seconds and half a gigabyte; a frozen GraphDef without functions needs
none of it. The message types below follow the field numbers of TensorFlow's public
graph.proto, node_def.proto, attr_value.proto, tensor.proto and tensor_shape.proto (only the
fields the converter reads) and live in a private descriptor pool, so they never clash with
TensorFlow's own classes. The function library is kept as raw bytes: a graph that has one is
read again with TensorFlow (see model_io.read_graph_def).
"""
from __future__ import annotations

from functools import lru_cache

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
PACKAGE = "mo_tf_light"


def _field(message, name: str, number: int, kind: int, repeated: bool = False, type_name: str | None = None,
           oneof: int | None = None) -> None:
    field = message.field.add(name=name, number=number, type=kind,
                              label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
    if type_name:
        field.type_name = f".{PACKAGE}.{type_name}"
    if oneof is not None:
        field.oneof_index = oneof


def _map(message, name: str, number: int, value_type: str) -> None:
    """map<string, value_type> as protobuf encodes it: a repeated nested entry message."""
    entry = message.nested_type.add(name=name.capitalize() + "Entry")
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name=value_type)
    _field(message, name, number, _F.TYPE_MESSAGE, repeated=True, type_name=f"{message.name}.{entry.name}")


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="mo_tf_light.proto", package=PACKAGE, syntax="proto3")

    shape = f.message_type.add(name="TensorShapeProto")
    dim = shape.nested_type.add(name="Dim")
    _field(dim, "size", 1, _F.TYPE_INT64)
    _field(dim, "name", 2, _F.TYPE_STRING)
    _field(shape, "dim", 2, _F.TYPE_MESSAGE, True, "TensorShapeProto.Dim")
    _field(shape, "unknown_rank", 3, _F.TYPE_BOOL)

    tensor = f.message_type.add(name="TensorProto")
    _field(tensor, "dtype", 1, _F.TYPE_INT32)
    _field(tensor, "tensor_shape", 2, _F.TYPE_MESSAGE, type_name="TensorShapeProto")
    _field(tensor, "version_number", 3, _F.TYPE_INT32)
    _field(tensor, "tensor_content", 4, _F.TYPE_BYTES)
    for name, number, kind in (("float_val", 5, _F.TYPE_FLOAT), ("double_val", 6, _F.TYPE_DOUBLE),
                               ("int_val", 7, _F.TYPE_INT32), ("string_val", 8, _F.TYPE_BYTES),
                               ("int64_val", 10, _F.TYPE_INT64), ("bool_val", 11, _F.TYPE_BOOL),
                               ("half_val", 13, _F.TYPE_INT32), ("uint32_val", 16, _F.TYPE_UINT32),
                               ("uint64_val", 17, _F.TYPE_UINT64), ("scomplex_val", 9, _F.TYPE_FLOAT),
                               ("dcomplex_val", 12, _F.TYPE_DOUBLE)):
        _field(tensor, name, number, kind, repeated=True)

    names = f.message_type.add(name="NameAttrList")
    _field(names, "name", 1, _F.TYPE_STRING)
    _map(names, "attr", 2, "AttrValue")

    attr = f.message_type.add(name="AttrValue")
    attr.oneof_decl.add(name="value")
    lst = attr.nested_type.add(name="ListValue")
    for name, number, kind, type_name in (("s", 2, _F.TYPE_BYTES, None), ("i", 3, _F.TYPE_INT64, None),
                                          ("f", 4, _F.TYPE_FLOAT, None), ("b", 5, _F.TYPE_BOOL, None),
                                          ("type", 6, _F.TYPE_INT32, None),
                                          ("shape", 7, _F.TYPE_MESSAGE, "TensorShapeProto"),
                                          ("tensor", 8, _F.TYPE_MESSAGE, "TensorProto"),
                                          ("func", 9, _F.TYPE_MESSAGE, "NameAttrList")):
        _field(lst, name, number, kind, repeated=True, type_name=type_name)
    for name, number, kind, type_name in (("list", 1, _F.TYPE_MESSAGE, "AttrValue.ListValue"),
                                          ("s", 2, _F.TYPE_BYTES, None), ("i", 3, _F.TYPE_INT64, None),
                                          ("f", 4, _F.TYPE_FLOAT, None), ("b", 5, _F.TYPE_BOOL, None),
                                          ("type", 6, _F.TYPE_INT32, None),
                                          ("shape", 7, _F.TYPE_MESSAGE, "TensorShapeProto"),
                                          ("tensor", 8, _F.TYPE_MESSAGE, "TensorProto"),
                                          ("placeholder", 9, _F.TYPE_STRING, None),
                                          ("func", 10, _F.TYPE_MESSAGE, "NameAttrList")):
        _field(attr, name, number, kind, type_name=type_name, oneof=0)

    node = f.message_type.add(name="NodeDef")
    _field(node, "name", 1, _F.TYPE_STRING)
    _field(node, "op", 2, _F.TYPE_STRING)
    _field(node, "input", 3, _F.TYPE_STRING, repeated=True)
    _field(node, "device", 4, _F.TYPE_STRING)
    _map(node, "attr", 5, "AttrValue")

    versions = f.message_type.add(name="VersionDef")
    _field(versions, "producer", 1, _F.TYPE_INT32)
    _field(versions, "min_consumer", 2, _F.TYPE_INT32)
    _field(versions, "bad_consumers", 3, _F.TYPE_INT32, repeated=True)

    graph = f.message_type.add(name="GraphDef")
    _field(graph, "node", 1, _F.TYPE_MESSAGE, True, "NodeDef")
    _field(graph, "library", 2, _F.TYPE_BYTES)
    _field(graph, "versions", 4, _F.TYPE_MESSAGE, type_name="VersionDef")
    return f


@lru_cache(maxsize=1)
def graph_def_class():
    """The light GraphDef message class (built once per process)."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.GraphDef"))
