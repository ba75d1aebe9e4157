"""The numpy reference interpreter, and the one way tests check a graph rewrite.

    outputs = run_reference(graph, {"x": x})        # or [x]: inputs in Parameter order
    assert_rewrite(build, SwishFusion, expect_ops=["Swish"])
    assert_untouched(build, SwishFusion)            # a graph the rewrite must leave alone

``run_reference`` evaluates a graph (data form, or op form for the front phase) without the
OpenVINO runtime: Parameters take the given inputs, every other op is computed by its
``Op.evaluate`` in topological order, and the Results give the outputs in creation order (the
model-output order of the IR). If, Loop and TensorIterator run their bodies as the port maps
say. An op without ``evaluate`` is an error naming it.

``assert_rewrite`` builds a small graph, computes its reference outputs, runs the rewrite,
lints the graph, checks the ops left and that the reference outputs are the same as before.
Comparisons with the OpenVINO runtime stay in ``tests/utils/runtime.py``, whose ``assert_close``
compares the outputs here too.
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np

from mo.graph.graph import Graph
from mo.graph.node import Node
from mo.graph.port import Port
from mo.utils.types import np_dtype
from tests.utils.graphs import new_graph
from tests.utils.runtime import assert_close

# Ops that only carry values in and out of a graph; not listed by ``live_ops``.
IO_OPS = ("Parameter", "Result", "Const")
_MAX_ITERATIONS = 100_000


class InterpreterError(AssertionError):
    """The reference interpreter cannot evaluate the graph."""


def parameters(graph: Graph) -> list[Node]:
    """Parameters in creation order (the order of the model's inputs)."""
    return sorted(graph.nodes_by_op("Parameter"), key=lambda n: n["_seq"])


def results(graph: Graph) -> list[Node]:
    """Results in creation order (the order of the model's outputs)."""
    return sorted(graph.nodes_by_op("Result"), key=lambda n: n["_seq"])


def run_reference(graph: Graph, inputs: dict[str, np.ndarray] | Sequence[np.ndarray]) -> list[np.ndarray]:
    """Outputs of ``graph`` for ``inputs``: a list in Parameter order, or a dict keyed by a
    Parameter's name, node id or output tensor name."""
    feed = _feed(graph, inputs)
    values = evaluate_graph(graph, feed)
    return [_result_value(graph, values, r.id) for r in results(graph)]


def evaluate_graph(graph: Graph, feed: dict[str, np.ndarray]) -> dict[tuple[str, int], np.ndarray]:
    """Value of every op output, keyed by (node id, output port); ``feed`` gives each
    Parameter's value by node id."""
    values: dict[tuple[str, int], np.ndarray] = {}
    for node in graph.topological_ops():
        if node.op == "Result":
            continue
        if node.op == "Parameter":
            if node.id not in feed:
                raise InterpreterError(f"no input value for Parameter '{node.name}'")
            values[(node.id, 0)] = feed[node.id]
            continue
        connected = graph.in_indices(node.id)
        inputs = [values[graph.producer(node.id, i)] if i in connected else None
                  for i in range(max(connected, default=-1) + 1)]
        for i, value in enumerate(evaluate_node(node, inputs)):
            values[(node.id, i)] = value
    return values


def evaluate_node(node: Node, inputs: list[np.ndarray | None]) -> list[np.ndarray]:
    """Output values of one op from its input values (None for an unconnected input)."""
    if node.op == "Const":
        return [np.asarray(node.value)]
    if node.op in _BODY_OPS:
        return _BODY_OPS[node.op](node, inputs)
    op_class = node.op_class
    if not op_class.has_evaluate():
        raise InterpreterError(f"op {node.op} (node '{node.name}') has no evaluate: the reference interpreter "
                             f"cannot compute it; give {op_class.__name__} an evaluate")
    try:
        return op_class.evaluate_outputs(node, inputs)
    except NotImplementedError as e:
        raise InterpreterError(f"op {node.op} (node '{node.name}'): {e}") from e


def _result_value(graph: Graph, values: dict, result_id: str) -> np.ndarray:
    return values[graph.producer(result_id, 0)]


def _feed(graph: Graph, inputs) -> dict[str, np.ndarray]:
    params = parameters(graph)
    if isinstance(inputs, dict):
        by_key = {}
        for p in params:
            for key in [p.name, p.id, *p.out_port(0).get_tensor_names()]:
                by_key.setdefault(key, p)
        unknown = [k for k in inputs if k not in by_key]
        if unknown:
            raise InterpreterError(f"no Parameter is called {unknown}; Parameters: {[p.name for p in params]}")
        given = {by_key[k].id: v for k, v in inputs.items()}
    else:
        if len(inputs) != len(params):
            raise InterpreterError(f"{len(inputs)} inputs for {len(params)} Parameters")
        given = {p.id: v for p, v in zip(params, inputs)}
    feed = {}
    for p in params:
        if p.id not in given:
            raise InterpreterError(f"no input value for Parameter '{p.name}'")
        feed[p.id] = _as_parameter_value(p, given[p.id])
    return feed


def _as_parameter_value(param: Node, value) -> np.ndarray:
    value = np.asarray(value)
    if param.get("element_type") not in (None, "dynamic"):
        value = value.astype(np_dtype(param.element_type), copy=False)
    return value


# ---------------------------------------------------------------------------------- bodies
def _run_body(node: Node, body_name: str, feed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Values of the body's Results by node id."""
    body = node.bodies[body_name]
    feed = {pid: _as_parameter_value(body.node(pid), v) for pid, v in feed.items()}
    values = evaluate_graph(body, feed)
    return {r.id: _result_value(body, values, r.id) for r in body.nodes_by_op("Result")}


def _evaluate_if(node: Node, inputs: list) -> list[np.ndarray]:
    name = "then_body" if bool(np.asarray(inputs[0]).reshape(-1)[0]) else "else_body"
    feed = {e["internal_id"]: inputs[e["external_port_id"]] for e in node.input_port_map
            if e["body"] == name and e["external_port_id"] >= 0}
    outputs = _run_body(node, name, feed)
    found = {e["external_port_id"]: outputs[e["internal_id"]] for e in node.output_port_map
             if e["body"] == name and e["external_port_id"] >= 0}
    return [found[i] for i in range(node.op_class.outputs_count(node))]


def _slices(x: np.ndarray, entry: dict) -> list[np.ndarray]:
    """The parts of ``x`` a sliced port map entry gives the iterations, in iteration order."""
    axis = entry["axis"] % x.ndim
    dim = x.shape[axis]
    part, stride = entry.get("part_size", 1), entry.get("stride", 1)
    start, end = (v + dim + 1 if v < 0 else v for v in (entry.get("start", 0), entry.get("end", -1)))
    if stride > 0:
        bounds = [(b, b + part) for b in range(start, end - part + 1, stride)]
    else:
        bounds = [(b - part, b) for b in range(start, end + part - 1, stride)]
    return [np.take(x, np.arange(b, e), axis=axis) for b, e in bounds]


def _evaluate_loop(node: Node, inputs: list) -> list[np.ndarray]:
    """TensorIterator and Loop: the body runs once per slice of the sliced inputs, while Loop's
    trip count and conditions allow; back edges carry Result values to Parameters."""
    state, sliced, counter = {}, {}, None
    for e in node.input_port_map:
        if e.get("purpose") == "current_iteration":
            counter = e["internal_id"]
        elif e["external_port_id"] >= 0:
            value = inputs[e["external_port_id"]]
            if e.get("axis") is not None:
                sliced[e["internal_id"]] = _slices(value, e)
            else:
                state[e["internal_id"]] = value
    limit = min((len(s) for s in sliced.values()), default=_MAX_ITERATIONS)
    running = True
    if node.op == "Loop":
        trip = inputs[0] if len(inputs) > 0 else None
        if trip is not None and int(np.asarray(trip).reshape(-1)[0]) >= 0:
            limit = min(limit, int(np.asarray(trip).reshape(-1)[0]))
        if len(inputs) > 1 and inputs[1] is not None:
            running = bool(np.asarray(inputs[1]).reshape(-1)[0])
    condition = next((e["internal_id"] for e in node.output_port_map if e.get("purpose") == "execution_condition"),
                     None)
    outputs = [e for e in node.output_port_map if e["external_port_id"] >= 0]
    collected: dict[int, list[np.ndarray]] = {i: [] for i in range(len(outputs))}
    iteration = 0
    while running and iteration < limit:
        feed = dict(state)
        feed.update({pid: parts[iteration] for pid, parts in sliced.items()})
        if counter is not None:
            feed[counter] = np.array(iteration)
        values = _run_body(node, "body", feed)
        for i, e in enumerate(outputs):
            collected[i].append(values[e["internal_id"]])
        for edge in node.back_edges:
            state[edge["to"]] = values[edge["from"]]
        if condition is not None:
            running = bool(np.asarray(values[condition]).reshape(-1)[0])
        iteration += 1
        if iteration == _MAX_ITERATIONS:
            raise InterpreterError(f"{node.op} '{node.name}' ran {_MAX_ITERATIONS} iterations without stopping")
    result = [None] * node.op_class.outputs_count(node)
    fed_back = {edge["from"]: edge["to"] for edge in node.back_edges}
    for i, e in enumerate(outputs):
        parts = collected[i]
        if e.get("axis") is not None:
            if not parts:
                raise InterpreterError(f"{node.op} '{node.name}' ran no iteration: its concatenated output "
                                     f"{e['external_port_id']} has no value")
            result[e["external_port_id"]] = np.concatenate(parts[::-1] if e.get("stride", 1) < 0 else parts,
                                                           axis=e["axis"] % parts[0].ndim)
        elif parts:
            result[e["external_port_id"]] = parts[-1]
        elif e["internal_id"] in fed_back and fed_back[e["internal_id"]] in state:
            result[e["external_port_id"]] = state[fed_back[e["internal_id"]]]
        else:
            raise InterpreterError(f"{node.op} '{node.name}' ran no iteration: output {e['external_port_id']} "
                                 f"has no value")
    return result


_BODY_OPS: dict[str, Callable] = {"If": _evaluate_if, "Loop": _evaluate_loop, "TensorIterator": _evaluate_loop}


# ---------------------------------------------------------------------------------- rewrites
def live_ops(graph: Graph, skip: Iterable[str] = IO_OPS) -> list[str]:
    """Op types of the nodes whose values reach a Result, in topological order, without the
    ``skip`` ones (Parameters, Results and Consts by default)."""
    alive = set()
    stack = [r.id for r in graph.nodes_by_op("Result")]
    while stack:
        n = stack.pop()
        if n in alive:
            continue
        alive.add(n)
        stack.extend(graph.predecessors(n))
    skip = set(skip)
    return [n.op for n in graph.topological_ops() if n.id in alive and n.op not in skip]


def random_inputs(graph: Graph, seed: int = 0) -> list[np.ndarray]:
    """One value per Parameter (static shapes only): normal floats, small integers, booleans."""
    rng = np.random.default_rng(seed)
    values = []
    for p in parameters(graph):
        shape = p.shape
        if shape is None or any(d < 0 for d in shape):
            raise InterpreterError(f"Parameter '{p.name}' has shape {shape}: give the inputs")
        dtype = np_dtype(p.element_type)
        if dtype == np.bool_:
            values.append(rng.random(shape) < 0.5)
        elif np.issubdtype(dtype, np.integer):
            values.append(rng.integers(0, 10, shape).astype(dtype))
        else:
            values.append(rng.standard_normal(shape).astype(dtype))
    return values


def build_graph(build: Callable, data_form: bool = True, **graph_args) -> Graph:
    """A fresh graph (``new_graph`` arguments) built by ``build(b)``; ports it returns (one, or
    a tuple) get Results."""
    graph, b = new_graph(data_form=data_form, **graph_args)
    out = build(b)
    for i, port in enumerate(out if isinstance(out, (tuple, list)) else [out] if out is not None else []):
        if isinstance(port, Node):
            port = port.out_port(0)
        assert isinstance(port, Port), f"build returned {port!r}, not ports"
        b.Result(port, name=f"out{i}")
    return graph


def _run_rewrite(rewrite, graph: Graph) -> None:
    for r in rewrite if isinstance(rewrite, (list, tuple)) else [rewrite]:
        if isinstance(r, type):
            r = r()
        if hasattr(r, "find_and_replace_pattern"):
            r.find_and_replace_pattern(graph)
        else:
            r(graph)


def assert_rewrite(build: Callable, rewrite, inputs=None, *, expect_ops: Sequence[str] | None,
                   inputs_before=None, rtol: float = 1e-5, atol: float = 1e-5, data_form: bool = True,
                   **graph_args) -> Graph:
    """Build the graph with ``build(b)``, compute its reference outputs for ``inputs`` (default:
    ``random_inputs``), run ``rewrite`` (a Transform class or instance, a function of the graph,
    or a list of them), lint, check that the op types reaching the outputs are ``expect_ops``
    (topological order, no Parameter/Result/Const; None: the same as before) and that the
    outputs are the same, and that every tensor name (each op output gets one) still names the
    value it named. A rewrite that changes what the inputs mean (preprocessing) gives
    ``inputs_before``: the original graph's inputs that the rewritten graph's ``inputs`` stand
    for. ``graph_args`` go to ``new_graph`` (framework, options). Returns the rewritten graph."""
    graph = build_graph(build, data_form, **graph_args)
    if inputs is None:
        inputs = random_inputs(graph)
    ops_before = live_ops(graph)
    before = run_reference(graph, inputs if inputs_before is None else inputs_before)
    if inputs_before is None:
        name_every_tensor(graph)
    names_before = named_values(graph, inputs) if inputs_before is None else {}
    _run_rewrite(rewrite, graph)
    graph.lint()
    ops_after = live_ops(graph)
    expected = ops_before if expect_ops is None else list(expect_ops)
    assert ops_after == expected, f"ops after the rewrite: {ops_after}, expected {expected} (before: {ops_before})"
    assert_close(run_reference(graph, inputs), before, rtol=rtol, atol=atol)
    assert_names_hold(names_before, graph, inputs, rtol, atol)
    return graph


def name_every_tensor(graph: Graph) -> None:
    """Give each output of an op a tensor name (``node id:port``) unless it has one, as the loaders
    name every tensor of a model, so that ``assert_names_hold`` sees where a rewrite moves them."""
    for node in graph.topological_ops():
        if node.op in ("Result", "Const"):
            continue
        for port in range(node.op_class.outputs_count(node)):
            if not node.out_port(port).get_tensor_names():
                node.out_port(port).add_tensor_names([f"{node.id}:{port}"])


def named_values(graph: Graph, inputs) -> dict[str, np.ndarray]:
    """The value of every tensor name of ``graph`` (what --validate_layers compares): the output
    that carries it, transposed back for a permuted name (``Port.get_permuted_names``)."""
    values = evaluate_graph(graph, _feed(graph, inputs))
    named: dict[str, np.ndarray] = {}
    for node in graph.topological_ops():
        for port, names in (node.get("tensor_names") or {}).items():
            named.update({name: values[(node.id, port)] for name in names if (node.id, port) in values})
        for port, names in (node.get("permuted_names") or {}).items():
            named.update({name: np.transpose(values[(node.id, port)], perm) for name, perm in names.items()
                          if (node.id, port) in values})
    return named


def assert_names_hold(before: dict[str, np.ndarray], graph: Graph, inputs, rtol: float, atol: float) -> None:
    """Every tensor name left in ``graph`` still names the value it named ``before`` (a name on a
    tensor that a rewrite changed in place would make --validate_layers report a difference that
    is not there)."""
    for name, value in named_values(graph, inputs).items():
        if name in before:
            expected = before[name]
            assert value.size == expected.size, f"tensor name '{name}' moved to a tensor of another size"
            try:
                assert_close([value.reshape(expected.shape)], [expected], rtol=rtol, atol=atol)
            except AssertionError as e:
                raise AssertionError(f"tensor name '{name}' names another value after the rewrite: {e}") from None


def assert_untouched(build: Callable, rewrite, inputs=None, **kwargs) -> Graph:
    """``assert_rewrite`` of a graph the rewrite must leave as it is."""
    return assert_rewrite(build, rewrite, inputs, expect_ops=None, **kwargs)
