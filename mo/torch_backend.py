"""``torch.compile(model, backend="mo")``: the entry point named in pyproject.toml's
``torch_dynamo_backends`` group. The backend itself is PyTorch code and lives with the PyTorch
loader (``extensions/load/pytorch/torch_compile/``, options described there); this module finds
it through the registry, as the pipeline finds loaders."""
from __future__ import annotations

import functools


@functools.cache
def _pytorch_loader():
    from mo.registry import Registry
    return Registry.build().loaders["pytorch"]


def mo_backend(gm, example_inputs, options: dict | None = None):
    """The Dynamo backend: lowers ``gm`` to ATen, converts what mo supports, returns a callable."""
    return _pytorch_loader().dynamo_backend(gm, example_inputs, options)


__all__ = ["mo_backend"]
