"""Operations of TensorFlow graphs that were not frozen for inference: variables and their
assignments, queues, iterators, hash tables, checkpoint saving and restoring, and string
processing (a Saver's file names, a text model's preprocessing).

The loader already makes input-pipeline outputs (IteratorGetNext, QueueDequeue*) model inputs,
keeps what a graph's outputs do not need out of the graph (a Saver's subgraph, table
initialisers), links hash tables to the keys and values that fill them
(extensions/load/tf/graph_only.py), and replaces the variables the graph assigns itself by the
values it assigns (extensions/load/tf/variables.py; those whose value the graph does not tell stay,
with the reason in ``graph.graph["tf_unknown_variables"]``). Here:

* a ``LookupTableFind(V2)`` / ``LookupTableSize(V2)`` on a table the graph fills with numeric keys
  (constants, or tensors it computes from its inputs) is converted on the table's contents (a
  comparison with the keys, a Gather of the values; the count of distinct keys);
* every other such op still in the graph is refused with one message that lists them all, says why
  the graph does not tell the value of each variable among them, and how to freeze the graph.
"""
from __future__ import annotations

import numpy as np

from extensions.load.tf.graph_only import TABLES
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, dim, dims_slice, i64, rank_of, shape_of
from mo.pipeline.anchors import FrontStart
from mo.pipeline.extract import framework_op_name
from mo.pipeline.transform import Transform

VARIABLES = ("Variable", "VariableV2", "VarHandleOp", "VarIsInitializedOp", "IsVariableInitialized", "Assign",
             "AssignVariableOp", "AssignAdd", "AssignSub", "AssignAddVariableOp", "AssignSubVariableOp",
             "TemporaryVariable", "DestroyTemporaryVariable")
PIPELINES = ("FIFOQueue", "FIFOQueueV2", "PaddingFIFOQueue", "PaddingFIFOQueueV2", "RandomShuffleQueue",
             "RandomShuffleQueueV2", "QueueEnqueue", "QueueEnqueueV2", "QueueEnqueueMany", "QueueEnqueueManyV2",
             "QueueClose", "QueueCloseV2", "QueueSize", "QueueSizeV2", "Iterator", "IteratorV2", "OneShotIterator",
             "AnonymousIterator", "AnonymousIteratorV2", "AnonymousIteratorV3", "MakeIterator",
             "IteratorToStringHandle", "IteratorFromStringHandle", "IteratorFromStringHandleV2")
TABLE_OPS = TABLES + ("LookupTableImport", "LookupTableImportV2", "LookupTableInsert", "LookupTableInsertV2",
                      "InitializeTable", "InitializeTableV2", "InitializeTableFromTextFile",
                      "InitializeTableFromTextFileV2", "LookupTableExport", "LookupTableExportV2")
LOOKUPS = ("LookupTableFind", "LookupTableFindV2", "LookupTableSize", "LookupTableSizeV2")
CHECKPOINTS = ("SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore", "RestoreSlice", "MergeV2Checkpoints",
               "ShardedFilename", "ShardedFilespec", "WriteFile")
# string processing: a Saver builds its file names with these; a text model preprocesses its input
STRINGS = ("StringJoin", "StaticRegexFullMatch", "StaticRegexReplace", "StringLower", "StringSplitV2",
           "StringToHashBucketFast")
GRAPH_ONLY = VARIABLES + PIPELINES + TABLE_OPS + CHECKPOINTS + STRINGS

ADVICE = ("Freeze the graph for inference first (tf.compat.v1.graph_util.convert_variables_to_constants or "
          "freeze_graph in TensorFlow 1, convert_variables_to_constants_v2 in TensorFlow 2) or export a "
          "SavedModel, which is converted with its variables; or cut the graph around these operations with "
          "--input/--output.")


INITIALIZED = ("IsVariableInitialized", "VarIsInitializedOp")
VARIABLE_NODES = ("Variable", "VariableV2", "VarHandleOp")


def frozen_variable_check(node) -> bool:
    """Whether ``node`` asks if a variable that freezing made a constant is initialized."""
    return node.fw_op in INITIALIZED and node.in_port(0).get_source().node.op == "Const"


@translator("tf", *GRAPH_ONLY)
def graph_only(node, b):
    """Refused as a whole by RefuseGraphOnlyOps before translation; kept registered so that
    extraction does not report them as unknown. A frozen variable is initialized."""
    if frozen_variable_check(node):
        return [b.const(np.array(True))]
    raise ConversionError(f"{node.fw_op} only exists in a graph that is not frozen for inference. {ADVICE}")


class FilledTables(Transform):
    """A lookup in a hash table the graph fills reads the table's contents instead of the
    table: the keys and values of each fill (which the loader made the table's inputs) become
    inputs of the lookup after its own, from input ``table_contents`` on. A table nothing else
    reads goes."""

    frameworks = ("tf",)
    ops = tuple(framework_op_name("tf", t) for t in LOOKUPS)

    def run_before(self):
        return [FrontStart]

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in graph.nodes_by_op(op):
                table = node.in_port(0).get_source().node
                contents = table.in_ports()
                if table.get("fw_op") not in TABLES or not contents:
                    continue
                first = max(node.in_ports()) + 1
                for i, port in sorted(contents.items()):
                    port.get_source().connect(node.in_port(first + i))
                node["table_contents"] = first
                node.in_port(0).disconnect()
                if not any(p.is_connected() for p in table.out_ports().values()):
                    graph.remove_node(table.id)


class RefuseGraphOnlyOps(Transform):
    """One error naming every graph-only operation the outputs still need."""

    frameworks = ("tf",)

    def run_after(self):
        return [FilledTables]

    def run_before(self):
        return [FrontStart]

    def matched_ops(self) -> set[str]:
        return {framework_op_name("tf", t) for t in GRAPH_ONLY + LOOKUPS}

    def find_and_replace_pattern(self, graph) -> None:
        found: dict[str, list[str]] = {}
        for node in graph.op_nodes():
            fw_op = node.get("fw_op")
            unfilled = fw_op in LOOKUPS and node.get("table_contents") is None
            if node.get("translate") and (fw_op in GRAPH_ONLY or unfilled) and not frozen_variable_check(node):
                found.setdefault(fw_op, []).append(node.name)
        if not found:
            return
        strings = {op: names for op, names in found.items() if op in STRINGS}
        machinery = {op: names for op, names in found.items() if op not in STRINGS}
        parts = []
        if machinery:
            parts.append(f"The model's outputs depend on operations of a TensorFlow graph that is not frozen for "
                         f"inference (variables, queues, iterators, hash tables, checkpoints): {listing(machinery)}.")
            names = {name for op, names in machinery.items() if op in VARIABLE_NODES for name in names}
            reasons = [f"'{name}' ({why})" for name, why in sorted(graph.graph.get("tf_unknown_variables", {}).items())
                       if name in names]
            if reasons:
                parts.append(f"The graph does not tell the value of variable {'; of '.join(reasons)}.")
            parts.append(ADVICE)
        if strings:
            parts.append(f"{'They also' if machinery else 'The outputs of the model'} depend on "
                         f"string operations, which have no OpenVINO counterpart here: {listing(strings)}; cut the "
                         f"graph after the string processing with --input.")
        raise ConversionError(" ".join(parts))


def listing(found: dict[str, list[str]]) -> str:
    """'Op (name, name, name, ...); Op (name)'."""
    return "; ".join(f"{op} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
                     for op, names in sorted(found.items()))


def table_contents(node, b) -> tuple:
    """(keys, values) of the table a lookup reads (FilledTables): the keys of its fills joined
    into one 1-D tensor, their values into [keys, *value shape]."""
    first = node["table_contents"]
    ports = [node.in_port(i).get_source() for i in sorted(node.in_ports()) if i >= first]
    keys, values = ports[0::2], ports[1::2]
    if any(k.data.get_dtype() == "string" for k in keys):
        raise ConversionError("the table's keys are strings, which OpenVINO cannot compare here; cut the graph "
                              "after the lookup with --input.")
    flat_keys, flat_values = [], []
    for k, v in zip(keys, values):
        flat_keys.append(b.Reshape(k, i64(-1), special_zero=False))
        value_shape = dims_slice(b, shape_of(b, v), rank_of(k, node))
        flat_values.append(b.Reshape(v, b.Concat(i64(-1), value_shape, axis=0), special_zero=False))
    join = (lambda ports: ports[0]) if len(keys) == 1 else (lambda ports: b.Concat(*ports, axis=0))
    return join(flat_keys), join(flat_values)


@translator("tf", "LookupTableFind", "LookupTableFindV2")
def lookup_table_find(node, b):
    """values[i] for the last i where keys[i] == key (a later fill overrides an earlier one, as
    TensorFlow's insert does), else the default value: a Gather from [default, *values] at
    i + 1, or 0 where no key matches."""
    keys, values = table_contents(node, b)
    query, default = node.in_port(1).get_source(), node.in_port(2).get_source()
    et = values.data.get_dtype()
    matches = b.Equal(b.Unsqueeze(query, i64(-1)), convert(b, keys, query.data.get_dtype()))      # [..., n]
    positions = b.Range(np.int64(1), b.Add(dim(b, keys, 0), np.int64(1)), np.int64(1), output_type="i64")
    index = b.ReduceMax(b.Select(matches, positions, np.int64(0)), i64(-1), keep_dims=False)
    choices = b.Concat(b.Unsqueeze(default if et == "string" else convert(b, default, et), i64(0)), values, axis=0)
    return [b.Gather(choices, index, np.int64(0))]


@translator("tf", "LookupTableSize", "LookupTableSizeV2")
def lookup_table_size(node, b):
    """The number of distinct keys."""
    keys, _ = table_contents(node, b)
    return [dim(b, b.node("Unique", keys, sorted=False).out_port(0), 0)]
