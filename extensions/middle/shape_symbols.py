"""Symbolic dimensions: which shape values are fixed by the weights, and which dims are equal.

Shape computations exported with a model (ShapeOf -> Gather -> Concat -> Reshape) are kept in the
IR so that it stays reshapeable. Many of them only compute numbers the weights fix (a hidden size,
a head count), or copy a dimension of the very tensor they reshape. An analysis gives every
dimension and every element of a shape value either an int (fixed: it cannot change when the model
inputs change shape, since it does not depend on them) or a ``Sym`` (depends on the inputs; two
equal Syms are the same dimension). Parameters give every dimension a Sym, static ones included,
so nothing that follows from an input shape is ever frozen; dims of inputs that the model's
loader names with one size symbol (``dim_symbols``: torch.export's shape constraints, e.g. the
batch of ``input_ids`` and of a decoder's cache) get one Sym.

Then:
* a shape value whose elements are all fixed becomes a Const (``FoldFixedShapeValues``);
* a Reshape whose target elements are fixed ints or copies of the input's dimension at the same
  position (plus at most one other) gets a constant target with special zeros and -1
  (``ReshapeTargetsFromSymbols``).

Rules for the common ops are below; any other op's outputs are fixed only when all its inputs are.
Data-movement ops (Gather, Slice, Concat, Squeeze, ...) move shape-value elements by running their
own ``evaluate`` on element positions.
"""
from __future__ import annotations

import itertools

import numpy as np

from extensions.middle.constant_folding import ConstantFolding
from extensions.middle.transpose_sinking import TransposeToReshape
from mo.graph.builder import OpBuilder
from mo.pipeline.infer import infer_node
from mo.pipeline.transform import Transform

_ids = itertools.count()


class Sym:
    """A dimension that depends on the model inputs; identity is equality."""

    __slots__ = ("id",)

    def __init__(self):
        self.id = next(_ids)

    def __repr__(self) -> str:
        return f"s{self.id}"


SHAPE_PRESERVING = frozenset({
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceiling", "Cos", "Cosh", "Erf", "Exp", "Floor",
    "Log", "Negative", "ReLU", "Sigmoid", "Sign", "Sin", "Sinh", "Sqrt", "Tan", "Tanh", "SoftPlus", "SoftSign",
    "Mish", "HSwish", "HSigmoid", "LogicalNot", "Identity", "Round", "Clamp", "Elu", "Gelu", "Swish", "Convert",
    "MVN", "Softmax", "LogSoftmax", "NormalizeL2", "IsFinite", "IsNaN", "IsInf", "BitwiseNot", "ConvertLike",
    "CumSum", "ReverseSequence", "PRelu", "Selu", "HardSigmoid", "LRN",
})
ELEMENTWISE = frozenset({
    "Add", "Subtract", "Multiply", "Divide", "Power", "Maximum", "Minimum", "SquaredDifference", "FloorMod", "Mod",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalXor",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Select",
})
REDUCTIONS = frozenset({"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                        "ReduceLogicalAnd", "ReduceLogicalOr"})
MOVEMENT = frozenset({"Gather", "Slice", "StridedSlice", "Squeeze", "Unsqueeze", "Reshape", "Concat", "Transpose",
                      "Broadcast", "Tile", "Split", "VariadicSplit"})
ARITHMETIC = {"Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Maximum": np.maximum,
              "Minimum": np.minimum}
_MAX_VALUE = 64   # shape values longer than this are not tracked


def _data(graph, node, port, out=True):
    data_id = graph.output_data(node.id, port) if out else graph.input_data(node.id, port)
    return None if data_id is None else graph._node[data_id]


def _fixed(syms) -> bool:
    return syms is not None and all(isinstance(s, (int, np.integer)) for s in syms)


class ShapeSymbolAnalysis:
    """Computes ``dims`` and ``vals`` per data node of one graph (data form, inferred)."""

    def __init__(self, graph):
        self.graph = graph
        self.dims: dict[str, tuple | None] = {}
        self.vals: dict[str, tuple | None] = {}
        self.named: dict[str, Sym] = {}     # the Sym of each size symbol the model's inputs share

    def data_id(self, node, port, out=True):
        return self.graph.output_data(node.id, port) if out else self.graph.input_data(node.id, port)

    def in_dims(self, node, i):
        return self.dims.get(self.data_id(node, i, out=False))

    def in_vals(self, node, i):
        return self.vals.get(self.data_id(node, i, out=False))

    def run(self) -> "ShapeSymbolAnalysis":
        for node in self.graph.topological_ops():
            count = node.op_class.outputs_count(node)
            for port in range(count):
                data_id = self.data_id(node, port)
                if data_id is None:
                    continue
                attrs = self.graph._node[data_id]
                self.dims[data_id] = self._dims(node, port, attrs.get("shape"))
                self.vals[data_id] = self._vals(node, port, attrs)
        return self

    # -------------------------------------------------------------- dimensions
    def _dims(self, node, port, shape):
        if shape is None:
            return None
        op = node.op
        fresh = tuple(Sym() for _ in shape)
        if op == "Parameter":
            names = node.get("dim_symbols")
            if names is None or len(names) != len(shape):
                return fresh
            return tuple(s if n is None else self.named.setdefault(n, s) for n, s in zip(names, fresh))
        if op == "Const":
            return tuple(int(d) for d in shape)
        ins = [self.in_dims(node, i) for i in sorted(node.in_ports())]
        vals_in = [self.in_vals(node, i) for i in sorted(node.in_ports())]
        if all(d is not None and _fixed(d) for d in ins) and all(v is None or _fixed(v) for v in vals_in) \
                and all(d >= 0 for d in shape):
            return tuple(int(d) for d in shape)
        first = ins[0] if ins else None
        if op in SHAPE_PRESERVING and first is not None and len(first) == len(shape):
            return first
        if op == "Select" and node.get("hidden_rows_to_zero") and ins[2] is not None and len(ins[2]) == len(shape):
            return ins[2]      # zeroes attention output rows: its condition broadcasts to that output
        if op in ELEMENTWISE:
            return self._broadcast(node, shape) or fresh
        if op == "MatMul":
            return self._matmul(node, shape) or fresh
        if op in REDUCTIONS:
            return self._reduced(node, shape) or fresh
        if op == "ScaledDotProductAttention":     # [..., L, E] queries, [..., S, Ev] values -> [..., L, Ev]
            q, v = ins[0], ins[2]
            if q is not None and v is not None and len(q) == len(shape) and v:
                return tuple(q[:-1]) + (v[-1],)
            return fresh
        if op == "Reshape":
            return self._reshape(node, shape) or fresh
        if op in MOVEMENT and op != "Reshape":
            return self._moved_dims(node, port, shape) or fresh
        if op in ("Convolution", "GroupConvolution", "MaxPool", "AvgPool") and first is not None:
            channels = shape[1] if op != "Convolution" else None
            w = self.in_dims(node, 1) if op == "Convolution" else None
            c = w[0] if w is not None else (first[1] if op in ("MaxPool", "AvgPool") else
                                            (int(channels) if channels is not None and channels >= 0 else Sym()))
            return (first[0], c) + fresh[2:]
        return fresh

    def _broadcast(self, node, shape):
        ins = [self.in_dims(node, i) for i in sorted(node.in_ports())]
        shapes = [node.in_shape(i) for i in sorted(node.in_ports())]
        if any(d is None or s is None for d, s in zip(ins, shapes)):
            return None
        rank = len(shape)
        out = []
        for k in range(rank):
            cands = [d[k - (rank - len(s))] for d, s in zip(ins, shapes)
                     if k - (rank - len(s)) >= 0 and s[k - (rank - len(s))] != 1]
            # a dim fixed at 1 broadcasts, whatever the inferred shape says (a [1, ?] position
            # table whose 1 the shape inference lost): it does not decide the output's dim
            cands = [c for c in cands if isinstance(c, Sym) or c != 1]
            fixed = [c for c in cands if not isinstance(c, Sym)]
            # broadcasting makes every non-1 dim equal: a fixed one wins; one symbol is kept; two
            # different symbols (either may be 1 at run time) give an unknown dim
            syms = {id(c): c for c in cands if isinstance(c, Sym)}
            out.append(fixed[0] if fixed else (next(iter(syms.values())) if len(syms) == 1 else
                                               (Sym() if syms else 1)))
        return tuple(out)

    def _reduced(self, node, shape):
        """A reduction keeps the dims it does not reduce (the reduced ones are 1 with keep_dims)."""
        dims, axes = self.in_dims(node, 0), node.in_value(1)
        if dims is None or axes is None or not dims:
            return None
        axes = {int(a) % len(dims) for a in np.atleast_1d(axes)}
        if node.get("keep_dims"):
            out = tuple(1 if k in axes else d for k, d in enumerate(dims))
        else:
            out = tuple(d for k, d in enumerate(dims) if k not in axes)
        return out if len(out) == len(shape) else None

    def _matmul(self, node, shape):
        a, b = self.in_dims(node, 0), self.in_dims(node, 1)
        if a is None or b is None or len(a) < 2 or len(b) < 2 or len(shape) < 2:
            return None
        m = a[-1] if node.get("transpose_a") else a[-2]
        n = b[-2] if node.get("transpose_b") else b[-1]
        batch = []
        rank = len(shape) - 2
        for k in range(rank):
            cands = [x[k - (rank - (len(x) - 2))] for x in (a, b) if k - (rank - (len(x) - 2)) >= 0]
            syms = [c for c in cands if isinstance(c, Sym)]
            ints = [c for c in cands if not isinstance(c, Sym) and c != 1]
            batch.append(syms[0] if syms else (ints[0] if ints else 1))
        return tuple(batch) + (m, n)

    def _reshape(self, node, shape):
        target = self.in_vals(node, 1)
        src = self.in_dims(node, 0)
        if target is None or len(target) != len(shape):
            return None
        out = []
        for i, t in enumerate(target):
            if isinstance(t, Sym):
                out.append(t)
            elif t == 0 and node.get("special_zero") and src is not None and i < len(src):
                out.append(src[i])
            else:
                out.append(int(t))
        if -1 in out:
            out[out.index(-1)] = self._inferred_dim(src, [d for d in out if not (isinstance(d, int) and d == -1)])
        return tuple(out)

    @staticmethod
    def _inferred_dim(src, others):
        """The -1 of a Reshape: what is left of the input's dims after the target's other dims
        (equal symbols cancel; 1s do not count); that dim when one is left, fixed when only ints
        are left on both sides."""
        if src is None:
            return Sym()
        left = list(src)
        rest = []
        for d in others:
            match = next((k for k, s in enumerate(left) if s is d or (not isinstance(s, Sym) and not
                                                                     isinstance(d, Sym) and s == d)), None)
            if match is not None:
                left.pop(match)
            else:
                rest.append(d)
        left, rest = ([d for d in dims if isinstance(d, Sym) or d != 1] for dims in (left, rest))
        if len(left) == 1 and not rest:
            return left[0]      # one dim left over: the -1 is that dim (a flatten of [batch, 1])
        if any(isinstance(d, Sym) for d in left + rest):
            return Sym()
        num, den = int(np.prod(left)) if left else 1, int(np.prod(rest)) if rest else 1
        return num // den if den and num % den == 0 else Sym()

    def _moved_dims(self, node, port, shape):
        """Dims of a data-movement op: a dim equal (and fixed, or one input dim) stays."""
        src = self.in_dims(node, 0)
        in_shape = node.in_shape(0)
        if src is None or in_shape is None:
            return None
        if node.op == "Transpose":
            order = node.in_value(1)
            if order is None:
                return None
            order = [int(o) for o in np.atleast_1d(order)] or list(range(len(src) - 1, -1, -1))
            return tuple(src[o] for o in order)
        if node.op == "Gather" and node.get("batch_dims", 0) == 0:
            axis, idx = node.in_value(2), self.in_dims(node, 1)
            if axis is not None and idx is not None:
                axis = int(axis) % len(src)
                out = tuple(src[:axis]) + tuple(idx) + tuple(src[axis + 1:])
                if len(out) == len(shape):
                    return out
        if node.op in ("Squeeze", "Unsqueeze", "Concat", "Split", "VariadicSplit", "Gather", "Slice",
                       "StridedSlice") and len(src) == len(shape):
            # same rank: dims that did not change size keep their symbol, others are new
            return tuple(s if (shape[i] == in_shape[i]) else (int(shape[i]) if shape[i] >= 0 and
                                                              not isinstance(s, Sym) else Sym())
                         for i, s in enumerate(src))
        if node.op == "Unsqueeze":
            axes = node.in_value(1)
            if axes is None:
                return None
            axes = sorted(int(a) % len(shape) for a in np.atleast_1d(axes))
            it = iter(src)
            return tuple(1 if i in axes else next(it) for i in range(len(shape)))
        if node.op == "Squeeze" and node.is_in_port_connected(1):
            axes = node.in_value(1)
            if axes is None:
                return None
            axes = {int(a) % len(src) for a in np.atleast_1d(axes)}
            return tuple(s for i, s in enumerate(src) if i not in axes)
        return None

    # -------------------------------------------------------------- shape values
    def _vals(self, node, port, attrs):
        shape = attrs.get("shape")
        dtype = attrs.get("dtype")
        if shape is None or len(shape) > 1 or dtype not in ("i64", "i32") or \
                (len(shape) == 1 and not 0 <= shape[0] <= _MAX_VALUE):
            return None
        value = attrs.get("value")
        op = node.op
        if op == "Const" or (value is not None and not attrs.get("shape_derived")):
            return tuple(int(v) for v in np.atleast_1d(value).reshape(-1))
        if op == "ShapeOf":
            return self.in_dims(node, 0)
        ins = [self.in_vals(node, i) for i in sorted(node.in_ports())]
        if ins and all(v is not None and _fixed(v) for v in ins) and value is not None:
            return tuple(int(v) for v in np.atleast_1d(value).reshape(-1))
        if op in ("Convert",) and ins and ins[0] is not None:
            return ins[0]
        if op in MOVEMENT:
            return self._moved_vals(node, port, shape)
        if op in ARITHMETIC and len(ins) == 2 and all(v is not None for v in ins):
            return self._arith(node, ins, shape)
        if op == "ReduceProd" and ins and ins[0] is not None:
            return (int(np.prod(ins[0])) if _fixed(ins[0]) else Sym(),) if not shape else None
        return tuple(Sym() for _ in range(int(np.prod(shape)) if shape else 1))

    def _moved_vals(self, node, port, shape):
        """Run the op on element positions to see where each output element comes from."""
        if node.op in ("Reshape", "Squeeze", "Unsqueeze", "Transpose"):   # order kept for 0-D/1-D values
            v = self.in_vals(node, 0)
            return v if v is not None and len(v) == (int(np.prod(shape)) if shape else 1) else None
        if not node.op_class.has_evaluate():
            return None
        ports = sorted(node.in_ports())
        sources, offset, arrays = [], 0, []
        for i in ports:
            v = self.in_vals(node, i)
            in_shape = node.in_shape(i)
            const = node.in_value(i)
            movable = node.op == "Concat" or i == 0
            if movable:
                if v is None or in_shape is None:
                    return None
                arrays.append(np.arange(offset, offset + len(v), dtype=np.int64).reshape(in_shape))
                sources.extend(v)
                offset += len(v)
            else:
                if const is None:
                    return None
                arrays.append(const)
        try:
            result = node.op_class.evaluate(node, *arrays)
        except Exception:
            return None
        if isinstance(result, (list, tuple)):
            result = result[port]
        positions = np.asarray(result).reshape(-1)
        if positions.shape[0] != (int(np.prod(shape)) if shape else 1):
            return None
        return tuple(sources[int(p)] for p in positions)

    def _arith(self, node, ins, shape):
        a, b = ins
        n = int(np.prod(shape)) if shape else 1
        if len(a) not in (1, n) or len(b) not in (1, n):
            return None
        out = []
        for k in range(n):
            x, y = a[k if len(a) > 1 else 0], b[k if len(b) > 1 else 0]
            if isinstance(x, Sym) or isinstance(y, Sym):
                neutral = {"Add": 0, "Subtract": 0, "Multiply": 1}.get(node.op)
                if node.op in ("Add", "Multiply") and x == neutral and isinstance(y, Sym):
                    out.append(y)
                elif node.op in ("Add", "Subtract", "Multiply") and y == neutral and isinstance(x, Sym):
                    out.append(x)
                else:
                    out.append(Sym())
            else:
                out.append(int(ARITHMETIC[node.op](x, y)))
        return tuple(out)


class FoldFixedShapeValues(Transform):
    """Shape values that the weights alone fix become constants; Reshape targets that copy the
    reshaped tensor's own dims use special zeros."""

    phase = "middle"

    def run_after(self):
        # after the layout step, whose Transpose sinking reads Reshape targets as they were built
        return [ConstantFolding, TransposeToReshape]

    def find_and_replace_pattern(self, graph) -> None:
        if not self._anything_to_do(graph):
            return
        analysis = ShapeSymbolAnalysis(graph).run()
        registry = graph.registry
        const_op = registry.op("Const")
        for node in graph.topological_ops():
            if node.id not in graph or node.op in ("Const", "Parameter", "Result") or node.get("bodies"):
                continue
            outputs = node.out_ports()
            if len(outputs) != 1:
                continue
            data_id = graph.output_data(node.id, 0)
            attrs = graph._node.get(data_id) if data_id else None
            if not attrs or not attrs.get("shape_derived"):
                continue
            vals = analysis.vals.get(data_id)
            if not _fixed(vals) or attrs.get("shape") is None:
                continue
            value = np.array(vals, dtype=np.int64 if attrs["dtype"] == "i64" else np.int32).reshape(attrs["shape"])
            const = const_op.create(graph, (), name=node.name, value=value, element_type=attrs["dtype"])
            node.out_port(0).get_connection().set_source(const.out_port(0))
            graph.remove_node(node.id)
        for reshape in graph.nodes_by_op("Reshape"):
            if not self._remove_if_identity(graph, reshape, analysis):
                self._rewrite_target(graph, reshape, analysis)

    @staticmethod
    def _anything_to_do(graph) -> bool:
        """Whether a shape-derived value exists or a Reshape's target is not a constant: without
        either, both loops below skip every node, and the analysis (a walk over the whole
        graph) is not run."""
        if any(d.get("shape_derived") for d in graph._node.values() if d.get("kind") == "data"):
            return True
        return any(reshape.in_value(1) is None for reshape in graph.nodes_by_op("Reshape"))

    @staticmethod
    def _remove_if_identity(graph, node, analysis) -> bool:
        """A Reshape whose output has its input's dims, one by one, changes nothing: it goes (a
        target computed at run time, e.g. transformers' ``attn_output.reshape(batch, -1, q_length,
        head_dim)`` after attention, would otherwise cost a shape computation per inference and
        keep the runtime from merging the Reshapes around it)."""
        src = analysis.in_dims(node, 0)
        out = analysis.dims.get(graph.output_data(node.id, 0))
        if src is None or out is None or len(src) != len(out) or not all(_same(a, b) for a, b in zip(src, out)):
            return False
        node.out_port(0).get_connection().set_source(node.in_port(0).get_source())
        graph.remove_node(node.id)
        return True

    @staticmethod
    def _rewrite_target(graph, node, analysis) -> None:
        if node.in_value(1) is not None and not graph._node[graph.input_data(node.id, 1)].get("shape_derived"):
            return
        target = analysis.in_vals(node, 1)
        src = analysis.in_dims(node, 0)
        if target is None or src is None:
            return
        special = bool(node.get("special_zero"))
        new, others = [], 0
        for i, t in enumerate(target):
            if isinstance(t, Sym):
                if i < len(src) and src[i] is t:
                    new.append(0)
                else:
                    new.append(-1)
                    others += 1
            else:
                if t == 0 and not special:
                    return          # a real zero-sized dim: special zeros would change its meaning
                if t == -1:
                    others += 1
                new.append(int(t))
        if others > 1:
            return
        b = OpBuilder(graph, node.name)
        b.const(np.array(new, np.int64)).connect(node.in_port(1))
        node["special_zero"] = True


class RemoveFlattenAroundMatMul(Transform):
    """Reshape(x[..., K] -> [-1, K]) -> MatMul(W[K, N]) [-> Add(b[N])] -> Reshape(-> [..., N]) where
    the final target restores x's leading dims: the MatMul takes x directly (it broadcasts over
    leading dims) and both Reshapes go. Exporters write linear layers this way (addmm on a
    flattened input)."""

    phase = "middle"

    def run_after(self):
        return [FoldFixedShapeValues]

    def find_and_replace_pattern(self, graph) -> None:
        analysis = None
        for matmul in graph.nodes_by_op("MatMul"):
            if matmul.id not in graph or matmul.get("transpose_a"):
                continue
            flatten = matmul.in_port(0).get_source().node
            weights = matmul.in_port(1).data.get_shape()
            if flatten.op != "Reshape" or weights is None or len(weights) != 2:
                continue
            if len(flatten.out_port(0).get_destinations()) != 1:
                continue
            x = flatten.in_port(0).get_source()
            tail = matmul
            nxt = self._sole(tail)
            if nxt is not None and nxt.op == "Add" and self._bias_ok(nxt, tail):
                tail, nxt = nxt, self._sole(nxt)
            if nxt is None or nxt.op != "Reshape":
                continue
            if analysis is None:   # one analysis for the whole pass: a rewrite keeps every other dim
                analysis = ShapeSymbolAnalysis(graph).run()
            x_dims = analysis.dims.get(graph.output_data(x.node.id, x.idx))
            flat_out = analysis.dims.get(graph.output_data(flatten.id, 0))
            final = analysis.dims.get(graph.output_data(nxt.id, 0))
            if x_dims is None or flat_out is None or final is None or len(flat_out) != 2 or len(x_dims) < 2:
                continue
            x_shape = x.data.get_shape()
            if not (_same(flat_out[1], x_dims[-1]) or (x_shape and flat_out[1] == x_shape[-1] >= 0)):
                continue
            if len(final) != len(x_dims) or any(not _same(a, b) for a, b in zip(final[:-1], x_dims[:-1])):
                continue
            x.connect(matmul.in_port(0))
            nxt.out_port(0).get_connection().set_source(tail.out_port(0))
            graph.remove_node(nxt.id)
            graph.remove_node(flatten.id)
            for node in dict.fromkeys((matmul, tail)):   # shapes change: infer the two again and
                infer_node(node)                         # give them the dims the removed Reshape had
                analysis.dims[graph.output_data(node.id, 0)] = final

    @staticmethod
    def _sole(node):
        dests = node.out_port(0).get_destinations()
        return dests[0].node if len(dests) == 1 else None

    @staticmethod
    def _bias_ok(add, matmul) -> bool:
        """The bias broadcasts along the last dim only, so adding it before or after the
        un-flattening is the same."""
        other = 1 if add.in_port(0).get_source().node == matmul else 0
        shape = add.in_port(other).data.get_shape()
        return shape is not None and all(d == 1 for d in shape[:-1])


def _same(a, b) -> bool:
    return a is b if isinstance(a, Sym) or isinstance(b, Sym) else a == b
