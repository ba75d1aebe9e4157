"""What the loader does with the operations of TensorFlow graphs that were not frozen for
inference (the translation side is extensions/front/tf/graph_only.py):

* the outputs of an input pipeline (``IteratorGetNext``, ``QueueDequeue*``) become model inputs:
  one Placeholder per component, with the component's type and shape (OpenVINO's converter does
  the same); the iterator or queue behind them is then unused;
* the checkpoint machinery (``SaveV2``, ``RestoreV2``, ``MergeV2Checkpoints``...) and what depends
  on it are not default outputs of a graph without declared outputs;
* a hash table filled by ``LookupTableImport(V2)`` / ``InitializeTable(V2)`` /
  ``LookupTableInsert(V2)`` reads the keys and values of its fills as data inputs (constants or
  tensors the graph computes, model inputs among them), which initialisation ops nothing reads
  would otherwise lose.
"""
from __future__ import annotations

from extensions.load.tf.functions import FlatGraph, TfNode, split_ref
from extensions.load.tf.tensors import tensor_to_array

SOURCES = ("IteratorGetNext", "IteratorGetNextSync", "QueueDequeue", "QueueDequeueV2", "QueueDequeueMany",
           "QueueDequeueManyV2", "QueueDequeueUpTo", "QueueDequeueUpToV2")
SAVER_OPS = frozenset({"SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore", "RestoreSlice", "MergeV2Checkpoints",
                       "ShardedFilename", "ShardedFilespec"})
TABLES = ("HashTable", "HashTableV2", "MutableHashTable", "MutableHashTableV2")
TABLE_FILLS = ("LookupTableImport", "LookupTableImportV2", "InitializeTable", "InitializeTableV2",
               "LookupTableInsert", "LookupTableInsertV2")


def component_shapes(n: TfNode, by_name: dict) -> list:
    """The shapes of the components ``n`` produces (TensorShapeProtos, or None when unknown)."""
    attrs = n.pb.attr
    if "output_shapes" in attrs:
        return list(attrs["output_shapes"].list.shape)
    if "_output_shapes" in attrs:
        return list(attrs["_output_shapes"].list.shape)
    queue = by_name.get(split_ref(n.inputs[0])[0]) if n.inputs else None
    if queue is not None and "shapes" in queue.pb.attr and len(queue.pb.attr["shapes"].list.shape):
        shapes = list(queue.pb.attr["shapes"].list.shape)
        if n.op.startswith(("QueueDequeueMany", "QueueDequeueUpTo")):
            count = None
            if n.op.startswith("QueueDequeueMany") and len(n.inputs) > 1:
                size = by_name.get(split_ref(n.inputs[1])[0])
                if size is not None and size.op == "Const":
                    count = int(tensor_to_array(size.pb.attr["value"].tensor)[0].reshape(-1)[0])
            batched = []
            for s in shapes:
                b = type(s)()
                b.dim.add().size = -1 if count is None else count
                b.dim.extend(s.dim)
                batched.append(b)
            shapes = batched
        return shapes
    return []


def sources_as_inputs(flat: FlatGraph) -> dict[str, list[str]]:
    """Replace each input-pipeline output by a Placeholder named ``<node>/component_<i>``;
    returns {Placeholder name: the tensor names it stands for}."""
    by_name = {n.name: n for n in flat.nodes}
    names: dict[str, list[str]] = {}
    nodes = []
    for n in flat.nodes:
        if n.op not in SOURCES:
            nodes.append(n)
            continue
        key = "output_types" if "output_types" in n.pb.attr else "component_types"
        types = list(n.pb.attr[key].list.type) if key in n.pb.attr else []
        shapes = component_shapes(n, by_name)
        for i, dtype in enumerate(types):
            pb = type(n.pb)()
            pb.name = f"{n.name}/component_{i}"
            pb.op = "Placeholder"
            pb.attr["dtype"].type = dtype
            if i < len(shapes):
                pb.attr["shape"].shape.CopyFrom(shapes[i])
            nodes.append(TfNode(pb.name, "Placeholder", [], pb))
            flat.aliases[f"{n.name}:{i}"] = f"{pb.name}:0"
            names[pb.name] = [f"{n.name}:{i}"] + ([n.name] if i == 0 else [])
    flat.nodes = nodes
    return names


def saver_nodes(flat: FlatGraph) -> set[str]:
    """Names of the checkpoint ops and of every node that depends on one (by data or control)."""
    readers: dict[str, list[str]] = {}
    for n in flat.nodes:
        for ref in n.inputs:
            readers.setdefault(split_ref(flat.resolve(ref))[0], []).append(n.name)
        for c in n.controls:
            readers.setdefault(c, []).append(n.name)
    tainted = set()
    stack = [n.name for n in flat.nodes if n.op in SAVER_OPS]
    while stack:
        name = stack.pop()
        if name not in tainted:
            tainted.add(name)
            stack += readers.get(name, [])
    return tainted


def fill_tables(flat: FlatGraph) -> None:
    """Each hash table the graph fills gets the keys and values of its fills as data inputs
    (keys, values, keys, values... in the order of the graph's nodes, ``added_inputs``); a lookup
    in it is converted on them (extensions/front/tf/graph_only.py)."""
    fills: dict[str, list[str]] = {}
    for n in flat.nodes:
        if n.op in TABLE_FILLS and len(n.inputs) >= 3:
            fills.setdefault(split_ref(flat.resolve(n.inputs[0]))[0], []).extend(n.inputs[1:3])
    for n in flat.nodes:
        if n.op in TABLES and n.name in fills and not n.inputs:
            n.inputs = fills[n.name]
            n.added_inputs = len(n.inputs)
