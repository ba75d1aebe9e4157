"""Light TensorFlow protobuf messages, read without importing TensorFlow.

Importing TensorFlow takes seconds and half a gigabyte; reading a GraphDef or a SavedModel needs
none of it. The message types below follow the field numbers of TensorFlow's public .proto
files (only the fields the converter reads) and live in a private descriptor pool, so they never
clash with TensorFlow's own classes: graph.proto, node_def.proto, attr_value.proto, tensor.proto,
tensor_shape.proto, function.proto and op_def.proto for GraphDefs and their function libraries;
saved_model.proto, meta_graph.proto, struct.proto (TensorInfo), saved_object_graph.proto,
trackable_object_graph.proto and tensor_bundle.proto for SavedModels (saved_model.py,
tensor_bundle.py).
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

    _function_messages(f)
    graph = f.message_type.add(name="GraphDef")
    _field(graph, "node", 1, _F.TYPE_MESSAGE, True, "NodeDef")
    _field(graph, "library", 2, _F.TYPE_MESSAGE, type_name="FunctionDefLibrary")
    _field(graph, "versions", 4, _F.TYPE_MESSAGE, type_name="VersionDef")
    _saved_model_messages(f)
    return f


def _string_map(message, name: str, number: int) -> None:
    entry = message.nested_type.add(name=name.capitalize() + "Entry")
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_STRING)
    _field(entry, "value", 2, _F.TYPE_STRING)
    _field(message, name, number, _F.TYPE_MESSAGE, repeated=True, type_name=f"{message.name}.{entry.name}")


def _function_messages(f) -> None:
    """op_def.proto and function.proto: OpDef (arguments and attribute defaults), FunctionDef."""
    arg = f.message_type.add(name="ArgDef")
    for name, number, kind in (("name", 1, _F.TYPE_STRING), ("type", 3, _F.TYPE_INT32),
                               ("type_attr", 4, _F.TYPE_STRING), ("number_attr", 5, _F.TYPE_STRING),
                               ("type_list_attr", 6, _F.TYPE_STRING), ("is_ref", 16, _F.TYPE_BOOL)):
        _field(arg, name, number, kind)
    attr_def = f.message_type.add(name="AttrDef")
    _field(attr_def, "name", 1, _F.TYPE_STRING)
    _field(attr_def, "type", 2, _F.TYPE_STRING)
    _field(attr_def, "default_value", 3, _F.TYPE_MESSAGE, type_name="AttrValue")
    op_def = f.message_type.add(name="OpDef")
    _field(op_def, "name", 1, _F.TYPE_STRING)
    _field(op_def, "input_arg", 2, _F.TYPE_MESSAGE, True, "ArgDef")
    _field(op_def, "output_arg", 3, _F.TYPE_MESSAGE, True, "ArgDef")
    _field(op_def, "attr", 4, _F.TYPE_MESSAGE, True, "AttrDef")
    _field(op_def, "is_stateful", 17, _F.TYPE_BOOL)
    op_list = f.message_type.add(name="OpList")
    _field(op_list, "op", 1, _F.TYPE_MESSAGE, True, "OpDef")

    arg_attrs = f.message_type.add(name="ArgAttrs")
    _map(arg_attrs, "attr", 1, "AttrValue")
    fdef = f.message_type.add(name="FunctionDef")
    _field(fdef, "signature", 1, _F.TYPE_MESSAGE, type_name="OpDef")
    _field(fdef, "node_def", 3, _F.TYPE_MESSAGE, True, "NodeDef")
    _string_map(fdef, "ret", 4)
    _map(fdef, "attr", 5, "AttrValue")
    entry = fdef.nested_type.add(name="ArgAttrEntry")
    entry.options.map_entry = True
    _field(entry, "key", 1, _F.TYPE_UINT32)
    _field(entry, "value", 2, _F.TYPE_MESSAGE, type_name="ArgAttrs")
    _field(fdef, "arg_attr", 7, _F.TYPE_MESSAGE, True, "FunctionDef.ArgAttrEntry")
    library = f.message_type.add(name="FunctionDefLibrary")
    _field(library, "function", 1, _F.TYPE_MESSAGE, True, "FunctionDef")


def _saved_model_messages(f) -> None:
    """saved_model.proto, meta_graph.proto, saved_object_graph.proto, trackable_object_graph.proto,
    tensor_bundle.proto: what it takes to find a signature's function and its variables."""
    info = f.message_type.add(name="TensorInfo")
    info.oneof_decl.add(name="encoding")
    _field(info, "name", 1, _F.TYPE_STRING, oneof=0)
    _field(info, "coo_sparse", 4, _F.TYPE_BYTES, oneof=0)
    _field(info, "composite_tensor", 5, _F.TYPE_BYTES, oneof=0)
    _field(info, "dtype", 2, _F.TYPE_INT32)
    _field(info, "tensor_shape", 3, _F.TYPE_MESSAGE, type_name="TensorShapeProto")
    signature = f.message_type.add(name="SignatureDef")
    _map(signature, "inputs", 1, "TensorInfo")
    _map(signature, "outputs", 2, "TensorInfo")
    _field(signature, "method_name", 3, _F.TYPE_STRING)

    S, I32, I64, B, BOOL, M = (_F.TYPE_STRING, _F.TYPE_INT32, _F.TYPE_INT64, _F.TYPE_BYTES, _F.TYPE_BOOL,
                               _F.TYPE_MESSAGE)
    # message: (field, number, kind, repeated, message type)
    for message, fields in (
            ("MetaInfoDef", (("stripped_op_list", 2, M, False, "OpList"), ("tags", 4, S, True, None),
                             ("stripped_default_attrs", 7, BOOL, False, None))),
            ("ObjectReference", (("node_id", 1, I32, False, None), ("local_name", 2, S, False, None))),
            ("SavedVariable", (("dtype", 1, I32, False, None), ("shape", 2, M, False, "TensorShapeProto"),
                               ("name", 6, S, False, None),
                               ("experimental_distributed_variable_components", 8, B, True, None))),
            ("SavedConstant", (("operation", 1, S, False, None),)),
            ("SavedFunction", (("concrete_functions", 1, S, True, None),)),
            ("SavedConcreteFunction", (("bound_inputs", 2, I32, True, None),)),
            ("SavedModel", (("saved_model_schema_version", 1, I64, False, None),
                            ("meta_graphs", 2, M, True, "MetaGraphDef"))),
            ("SerializedTensor", (("name", 1, S, False, None), ("full_name", 2, S, False, None),
                                  ("checkpoint_key", 3, S, False, None))),
            ("TrackableObject", (("children", 1, M, True, "ObjectReference"),
                                 ("attributes", 2, M, True, "SerializedTensor"))),
            ("TrackableObjectGraph", (("nodes", 1, M, True, "TrackableObject"),)),
            ("BundleHeaderProto", (("num_shards", 1, I32, False, None), ("endianness", 2, I32, False, None))),
            ("BundleEntryProto", (("dtype", 1, I32, False, None), ("shape", 2, M, False, "TensorShapeProto"),
                                  ("shard_id", 3, I32, False, None), ("offset", 4, I64, False, None),
                                  ("size", 5, I64, False, None), ("slices", 7, B, True, None)))):
        added = f.message_type.add(name=message)
        for name, number, kind, repeated, type_name in fields:
            _field(added, name, number, kind, repeated, type_name)
    saved = f.message_type.add(name="SavedObject")
    saved.oneof_decl.add(name="kind")
    _field(saved, "children", 1, M, True, "ObjectReference")
    for name, number, type_name in (("user_object", 4, None), ("asset", 5, None), ("function", 6, "SavedFunction"),
                                    ("variable", 7, "SavedVariable"), ("bare_concrete_function", 8, None),
                                    ("constant", 9, "SavedConstant"), ("resource", 10, None),
                                    ("captured_tensor", 12, None)):
        _field(saved, name, number, M if type_name else B, type_name=type_name, oneof=0)
    object_graph = f.message_type.add(name="SavedObjectGraph")
    _field(object_graph, "nodes", 1, M, True, "SavedObject")
    _map(object_graph, "concrete_functions", 2, "SavedConcreteFunction")
    meta = f.message_type.add(name="MetaGraphDef")
    _field(meta, "meta_info_def", 1, M, type_name="MetaInfoDef")
    _field(meta, "graph_def", 2, M, type_name="GraphDef")
    _map(meta, "signature_def", 5, "SignatureDef")
    _field(meta, "object_graph_def", 7, M, type_name="SavedObjectGraph")


@lru_cache(maxsize=1)
def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return pool


@lru_cache(maxsize=None)
def light_class(name: str):
    """A light message class by name (``GraphDef``, ``SavedModel``, ``BundleEntryProto``...)."""
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(f"{PACKAGE}.{name}"))


def graph_def_class():
    """The light GraphDef message class (built once per process)."""
    return light_class("GraphDef")


def parse_light(name: str, data: bytes, what: str):
    """A light message ``name`` parsed from ``data``; damaged data is one InputModelError about
    ``what``."""
    from mo.errors import InputModelError
    message = light_class(name)()
    try:
        message.ParseFromString(data)
    except Exception as e:
        raise InputModelError(f"{what} is not a valid {name} ({type(e).__name__}: {e}).") from None
    return message
