"""Expansion of ONNX function ops.

Many ONNX operators are defined by the ONNX specification as a function: a small graph of
simpler operators (Celu, Mish, LayerNormalization, Range, ...). For a node whose op type has no
extractor but whose schema carries such a body, the loader inlines the body the ONNX package
provides (with the node's attributes substituted and tensors renamed) instead of failing.
Context-dependent bodies need the node's input types; they come from ONNX type inference.
"""
from __future__ import annotations

import itertools


class FunctionExpander:
    """Decides whether a node is expanded and produces the NodeProtos of its body."""

    def __init__(self, registry, opsets: dict[str, int], model):
        self.registry = registry
        self.opsets = opsets
        self.model = model
        self._types: dict | None = None
        self._counter = itertools.count()

    def _schema(self, op_type: str, domain: str, opset: int | None = None):
        import onnx.defs
        try:
            return onnx.defs.get_schema(op_type, opset if opset is not None else self.opsets.get(domain, 1), domain)
        except Exception:
            return None

    def should_expand(self, proto, domain: str) -> bool:
        if self.registry.handles("onnx", proto.op_type, domain):
            return False
        schema = self._schema(proto.op_type, domain)
        return schema is not None and (schema.has_function or schema.has_context_dependent_function)

    # ------------------------------------------------------------------ types
    def types(self) -> dict:
        if self._types is None:
            import onnx.shape_inference
            types = {}
            try:
                inferred = onnx.shape_inference.infer_shapes(self.model)
            except Exception:
                inferred = self.model
            self._collect(inferred.graph, types)
            self._types = types
        return self._types

    def _collect(self, graph, types: dict) -> None:
        from onnx import helper
        for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
            types[vi.name] = vi.type
        for init in graph.initializer:
            types.setdefault(init.name, helper.make_tensor_type_proto(init.data_type, list(init.dims)))
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == attr.GRAPH:
                    self._collect(attr.g, types)

    def _record_outputs(self, node, domain: str, opset: int) -> None:
        """Type-infer one node so that later context-dependent expansions see its outputs."""
        import onnx.shape_inference
        types = self.types()
        if all(o in types for o in node.output if o):
            return
        schema = self._schema(node.op_type, domain, opset)
        if schema is None:
            return
        inputs = {n: types[n] for n in node.input if n and n in types}
        try:
            outs = onnx.shape_inference.infer_node_outputs(schema, node, inputs)
        except Exception:
            return
        types.update(outs)

    # ------------------------------------------------------------------ expansion
    def _function(self, proto, domain: str):
        from onnx import FunctionProto
        opset = self.opsets.get(domain, 1)
        schema = self._schema(proto.op_type, domain)
        versions = [v for v in schema.function_opset_versions if v <= opset] if schema.has_function else []
        if versions:
            data = schema.get_function_with_opset_version(max(versions))
        else:
            types = self.types()
            missing = [n for n in proto.input if n and n not in types]
            if missing:
                return None
            input_types = [types[n].SerializeToString() for n in proto.input if n]
            cd_versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
            version = max(cd_versions) if cd_versions else opset
            data = schema.get_context_dependent_function_with_opset_version(
                version, proto.SerializeToString(), input_types)
        fn = FunctionProto()
        fn.ParseFromString(data)
        return fn

    def expand(self, proto, domain: str) -> list[tuple] | None:
        """(NodeProto, opset) pairs equivalent to ``proto`` (its function body, renamed and
        specialised), or None when the body cannot be made (input types unknown)."""
        from onnx import NodeProto

        fn = self._function(proto, domain)
        if fn is None:
            return None
        prefix = f"{proto.name or proto.output[0]}/{proto.op_type}_{next(self._counter)}"
        rename = {}
        for formal, actual in zip(fn.input, proto.input):
            rename[formal] = actual
        for formal in fn.input[len(proto.input):]:
            rename[formal] = ""
        for formal, actual in zip(fn.output, proto.output):
            rename[formal] = actual
        attrs = {a.name: a for a in proto.attribute}
        schema = self._schema(proto.op_type, domain)
        for name, spec in schema.attributes.items():
            if name not in attrs and spec.default_value is not None and spec.default_value.type != 0:
                attrs[name] = spec.default_value
        fn_opsets = {("" if o.domain in ("", "ai.onnx") else o.domain): o.version for o in fn.opset_import}
        result = []
        for inner in fn.node:
            node = NodeProto()
            node.CopyFrom(inner)
            node.name = f"{prefix}/{inner.name or inner.op_type}"
            del node.input[:]
            del node.output[:]
            node.input.extend(rename.get(n, f"{prefix}/{n}") if n else "" for n in inner.input)
            node.output.extend(rename.get(n, f"{prefix}/{n}") if n else "" for n in inner.output)
            del node.attribute[:]
            for a in inner.attribute:
                if a.ref_attr_name:
                    if a.ref_attr_name in attrs:
                        resolved = type(a)()
                        resolved.CopyFrom(attrs[a.ref_attr_name])
                        resolved.name = a.name
                        node.attribute.append(resolved)
                else:
                    node.attribute.append(a)
            for a in node.attribute:
                if a.type == a.GRAPH:
                    _rename_free_names(a.g, lambda n: rename.get(n, f"{prefix}/{n}"))
                elif a.type == a.GRAPHS:
                    for g in a.graphs:
                        _rename_free_names(g, lambda n: rename.get(n, f"{prefix}/{n}"))
            inner_domain = "" if inner.domain in ("", "ai.onnx") else inner.domain
            opset = fn_opsets.get(inner_domain, self.opsets.get(inner_domain, 1))
            self._record_outputs(node, inner_domain, opset)
            result.append((node, opset))
        return result


def _rename_free_names(graph, rename) -> None:
    """Rename, in a nested graph, the tensor names it reads from the enclosing function body
    (names it does not define itself), recursing into deeper graphs."""
    local = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    local |= {o for n in graph.node for o in n.output if o}

    def outer(name: str) -> str:
        return name if not name or name in local else rename(name)

    for node in graph.node:
        new_inputs = [outer(n) for n in node.input]
        del node.input[:]
        node.input.extend(new_inputs)
        for a in node.attribute:
            if a.type == a.GRAPH:
                _rename_free_names(a.g, outer)
            elif a.type == a.GRAPHS:
                for g in a.graphs:
                    _rename_free_names(g, outer)
    for out in graph.output:
        out.name = outer(out.name)
