"""Operations of TensorFlow graphs that were not frozen for inference: variables and their
assignments, queues, iterators, hash tables, checkpoint saving and restoring, and string
processing (a Saver's file names, a text model's preprocessing).

The loader already makes input-pipeline outputs (IteratorGetNext, QueueDequeue*) model inputs,
keeps what a graph's outputs do not need out of the graph (a Saver's subgraph, table
initialisers), and records the constant contents of hash tables (extensions/load/tf/graph_only.py).
Here:

* a ``LookupTableFind(V2)`` / ``LookupTableSize(V2)`` on a table filled with numeric constants is
  converted (a comparison with the keys, a Gather of the values);
* every other such op still in the graph is refused with one message that lists them all and says
  how to freeze the graph.
"""
from __future__ import annotations

import numpy as np

from extensions.load.tf.graph_only import TABLES
from mo.errors import ConversionError
from mo.front.translator import translator
from mo.graph.building import convert, i64, typed_const
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


class ConstantTables(Transform):
    """A table lookup reads the keys and values the loader found for its table (``tf_table``)
    instead of the table; a table nothing else reads goes."""

    frameworks = ("tf",)
    ops = tuple(framework_op_name("tf", t) for t in LOOKUPS)

    def run_before(self):
        return [FrontStart]

    def find_and_replace_pattern(self, graph) -> None:
        for op in self.ops:
            for node in graph.nodes_by_op(op):
                table = node.in_port(0).get_source().node
                if table.get("fw_op") not in TABLES or table.get("tf_table") is None:
                    continue
                keys, values = table["tf_table"]
                if keys.dtype == object or values.dtype == object:
                    continue
                node["tf_table"] = (keys, values)
                node.in_port(0).disconnect()
                if not any(p.is_connected() for p in table.out_ports().values()):
                    graph.remove_node(table.id)


class RefuseGraphOnlyOps(Transform):
    """One error naming every graph-only operation the outputs still need."""

    frameworks = ("tf",)

    def run_after(self):
        return [ConstantTables]

    def run_before(self):
        return [FrontStart]

    def matched_ops(self) -> set[str]:
        return {framework_op_name("tf", t) for t in GRAPH_ONLY + LOOKUPS}

    def find_and_replace_pattern(self, graph) -> None:
        found: dict[str, list[str]] = {}
        for node in graph.op_nodes():
            fw_op = node.get("fw_op")
            if node.get("translate") and (fw_op in GRAPH_ONLY or fw_op in LOOKUPS and node.get("tf_table") is None) \
                    and not frozen_variable_check(node):
                found.setdefault(fw_op, []).append(node.name)
        if not found:
            return
        strings = {op: names for op, names in found.items() if op in STRINGS}
        machinery = {op: names for op, names in found.items() if op not in STRINGS}
        parts = []
        if machinery:
            parts.append(f"The model's outputs depend on operations of a TensorFlow graph that is not frozen for "
                         f"inference (variables, queues, iterators, hash tables, checkpoints): {listing(machinery)}. "
                         f"{ADVICE}")
        if strings:
            parts.append(f"{'They also' if machinery else 'The outputs of the model'} depend on "
                         f"string operations, which have no OpenVINO counterpart here: {listing(strings)}; cut the "
                         f"graph after the string processing with --input.")
        raise ConversionError(" ".join(parts))


def listing(found: dict[str, list[str]]) -> str:
    """'Op (name, name, name, ...); Op (name)'."""
    return "; ".join(f"{op} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
                     for op, names in sorted(found.items()))


@translator("tf", "LookupTableFind", "LookupTableFindV2")
def lookup_table_find(node, b):
    """values[i] where keys[i] == key, else the default value."""
    if node.get("tf_table") is None:
        raise ConversionError("the table it reads is not filled with numeric constants.")
    keys, values = node["tf_table"]
    query, default = node.in_port(1).get_source(), node.in_port(2).get_source()
    table_keys = typed_const(b, keys, query.data.get_dtype())
    matches = b.Equal(b.Unsqueeze(query, i64(-1)), table_keys)                      # [..., n]
    found = b.ReduceLogicalOr(matches, i64(-1), keep_dims=False)
    index = b.ReduceSum(b.Multiply(convert(b, matches, "i64"), np.arange(keys.size, dtype=np.int64)), i64(-1),
                        keep_dims=False)
    table_values = typed_const(b, values, default.data.get_dtype())
    return [b.Select(found, b.Gather(table_values, index, np.int64(0)), default)]


@translator("tf", "LookupTableSize", "LookupTableSizeV2")
def lookup_table_size(node, b):
    if node.get("tf_table") is None:
        raise ConversionError("the table it reads is not filled with numeric constants.")
    return [b.const(np.int64(node["tf_table"][0].size))]
