"""Runs a converted part in the OpenVINO runtime (openvino is imported through mo/runtime, and
only when a part is compiled)."""
from __future__ import annotations

import logging

import numpy as np

from extensions.load.pytorch.fx_module import output_name
from mo.runtime.openvino_ir import core, import_openvino, read_ir, read_ir_file

log = logging.getLogger("mo.compile")


def read_ir_in_place(xml: str, weights):
    """An ``openvino.Model`` whose Consts use ``weights`` in place when it is a writable buffer
    (what ``convert_model`` returns: no copy of the weights; the caller keeps it alive as long as
    the model or anything compiled from it), or a copy of it otherwise."""
    if not len(weights) or memoryview(weights).readonly:
        return read_ir(xml, weights)
    tensor = import_openvino().Tensor(np.frombuffer(weights, dtype=np.uint8), shared_memory=True)
    return core().read_model(model=xml, weights=tensor)


class OpenVINOPart:
    """The forward of an FX submodule once converted (``install`` puts it in place): feeds the
    submodule's non-frozen inputs to the compiled IR and returns its outputs as torch values.
    Frozen inputs (weights) are checked for in-place changes; a changed weight makes the part
    run the submodule's original PyTorch code from then on."""

    def __init__(self, sub, frozen: dict, xml, opts):
        """``xml``: the path of the IR's .xml, or the IR in memory (an ``IRModel``)."""
        import torch
        self.fallback = sub.forward      # the submodule's own code (its class's forward)
        placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        self.frozen = [(i, frozen[n.name], frozen[n.name]._version, frozen[n.name].data_ptr())
                       for i, n in enumerate(placeholders) if n.name in frozen]
        if isinstance(xml, str):
            model = read_ir_file(xml)
        else:   # the compiled model may keep using the weights' memory: it lives as long as the part
            self.weights = xml.weights
            model = read_ir_in_place(xml.xml, self.weights)
        self.compiled = core().compile_model(model, opts.device, opts.properties())
        self.request = self.compiled.create_infer_request()
        names = {name for port in self.compiled.inputs for name in port.get_names()}
        # (argument index, port) of each input the IR kept
        self.inputs = [(i, self.compiled.input(n.name)) for i, n in enumerate(placeholders)
                       if n.name not in frozen and n.name in names]
        output = next(n for n in sub.graph.nodes if n.op == "output")
        outs = output.args[0] if isinstance(output.args[0], (list, tuple)) else [output.args[0]]
        self.single = not isinstance(output.args[0], (list, tuple))
        self.outputs = []
        for i, out in enumerate(outs):
            val = out.meta.get("val") if hasattr(out, "meta") else None
            port = self.compiled.output(output_name(i))
            self.outputs.append((port, getattr(val, "dtype", None), isinstance(val, torch.SymInt),
                                 port.get_element_type() == import_openvino().Type.bf16))
        self.stale = False

    def install(self, sub) -> None:
        """Make calls of ``sub`` (the fused graph calls it as a submodule) run this part."""
        sub.forward = self

    def __call__(self, *args):
        if self.stale or any(args[i]._version != version or args[i].data_ptr() != ptr
                             for i, _, version, ptr in self.frozen if args[i] is not None):
            if not self.stale:
                log.warning("mo: a weight of an OpenVINO part changed in place; the part runs in PyTorch from "
                            "now on (compile the model again to convert the new weights)")
                self.stale = True
            return self.fallback(*args)
        import torch
        feed = {}
        for i, port in self.inputs:
            value = args[i]
            if isinstance(value, torch.Tensor) and value.dtype == torch.bfloat16:   # numpy has no bf16: its bits
                bits = value.detach().contiguous().view(torch.int16).numpy()
                feed[port] = import_openvino().Tensor(bits, list(bits.shape), import_openvino().Type.bf16)
            elif isinstance(value, torch.Tensor):
                feed[port] = value.detach().contiguous().numpy()
            else:
                feed[port] = np.array(int(value), dtype=np.int64)
        results = self.request.infer(feed, share_inputs=True, share_outputs=False)
        outputs = []
        for port, dtype, symbolic, bf16 in self.outputs:
            array = results[port]
            if symbolic:
                outputs.append(int(array))
                continue
            # a bf16 output comes as its bits (in a float16 array)
            tensor = torch.from_numpy(np.asarray(array).view(np.int16)).view(torch.bfloat16) if bf16 else \
                torch.from_numpy(np.asarray(array))
            outputs.append(tensor if dtype is None or tensor.dtype == dtype else tensor.to(dtype))
        return outputs[0] if self.single else tuple(outputs)
