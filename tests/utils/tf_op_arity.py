"""The number of data inputs each TensorFlow op type takes and the attributes it cannot do without
(those with no default value), from TensorFlow's own op registry:
the table extensions/load/tf/op_arity.json is generated from it (the loader checks nodes against
the table without importing TensorFlow). Likewise extensions/load/tf/op_outputs.json: the output
arguments of each op type, which a SavedModel's function bodies are read with when the
SavedModel's own op list leaves an op out.

    python -m tests.utils.tf_op_arity      # rewrites extensions/load/tf/op_arity.json and op_outputs.json
"""
from __future__ import annotations

import json
import os

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "extensions", "load", "tf", "op_arity.json")
OUTPUTS_TABLE = os.path.join(os.path.dirname(TABLE), "op_outputs.json")


def compute_outputs() -> dict[str, list]:
    """{op type: [[output argument, attribute with its number of tensors ('' for one tensor),
    'number' or 'list' or '']]} of every registered op."""
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry
    table = {}
    for name in sorted(n for n in dir(tf.raw_ops) if not n.startswith("_")):
        op_def = op_def_registry.get(name)
        if op_def is None:
            continue
        table[name] = [[a.name, a.number_attr or a.type_list_attr,
                        "number" if a.number_attr else "list" if a.type_list_attr else ""] for a in op_def.output_arg]
    return table


def compute_arity() -> dict[str, list]:
    """{op type: [least inputs, most inputs or None for any number, [attributes without a default]]}
    of every registered op."""
    import tensorflow as tf
    from tensorflow.python.framework import op_def_registry
    table = {}
    for name in sorted(n for n in dir(tf.raw_ops) if not n.startswith("_")):
        op_def = op_def_registry.get(name)
        if op_def is None:
            continue
        minimums = {a.name: (a.minimum if a.has_minimum else 0) for a in op_def.attr}
        least, most = 0, 0
        for arg in op_def.input_arg:
            if arg.number_attr:
                least += minimums.get(arg.number_attr, 0)
                most = None
            elif arg.type_list_attr:
                least += minimums.get(arg.type_list_attr, 0)
                most = None
            else:
                least += 1
                most = None if most is None else most + 1
        required = sorted(a.name for a in op_def.attr if not a.HasField("default_value"))
        table[name] = [least, most, required]
    return table


def format_table(table: dict) -> str:
    """The JSON text of the table, one op per line."""
    lines = [f"  {json.dumps(name)}: {json.dumps(arity)}" for name, arity in sorted(table.items())]
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    with open(TABLE, "w") as f:
        f.write(format_table(compute_arity()))
    with open(OUTPUTS_TABLE, "w") as f:
        f.write(format_table(compute_outputs()))
