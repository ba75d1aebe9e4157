"""A PyTorch op that mo has no translator for, as a user's own op would be: ``mo_tests::untranslated``
(tanh(x) / 2, deterministic, with a fake implementation so that torch.export and torch.compile
capture it as one node). Tests of unsupported-op messages and of torch.compile's fallback use it."""
import torch

OP_NAME = "mo_tests::untranslated"


@torch.library.custom_op(OP_NAME, mutates_args=())
def untranslated(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x) / 2


@untranslated.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)
