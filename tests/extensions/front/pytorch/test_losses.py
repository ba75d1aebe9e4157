"""Layer tests of the ATen loss functions (extensions/front/pytorch/losses.py) through each
capture path."""
import pytest
import torch
import torch.nn.functional as F

from tests.utils.torch_models import PATHS, check_module

torch.manual_seed(0)


class ClassLosses(torch.nn.Module):
    """cross entropy of class indices (weights, ignore_index, label smoothing, unbatched, spatial)
    and of probabilities, nll_loss, multi_margin_loss, multilabel_margin_loss (targets ended by -1,
    repeated, all classes; unbatched)."""

    def forward(self, x, t, p, w, img, img_t, labels):
        return F.cross_entropy(x, t), F.cross_entropy(x, t, weight=w, reduction="sum"), \
            F.cross_entropy(x, t, ignore_index=1, reduction="none"), F.cross_entropy(x, t, label_smoothing=0.2), \
            F.cross_entropy(x, t, weight=w, label_smoothing=0.1), F.cross_entropy(x[0], t[0]), \
            F.cross_entropy(x, p), F.cross_entropy(x, p, weight=w, label_smoothing=0.3, reduction="none"), \
            F.cross_entropy(img, img_t), F.nll_loss(F.log_softmax(x, 1), t, weight=w), \
            F.nll_loss(F.log_softmax(img, 1), img_t, reduction="none"), F.multi_margin_loss(x, t), \
            F.multi_margin_loss(x, t, p=2, margin=0.5, weight=w, reduction="sum"), \
            F.multilabel_margin_loss(x, labels, reduction="none"), F.multilabel_margin_loss(x[0], labels[0])


@pytest.mark.parametrize("path", PATHS)
def test_class_losses(path, tmp_path):
    x, t = torch.randn(4, 5), torch.tensor([0, 3, 1, 4])
    inputs = (x, t, torch.softmax(torch.randn(4, 5), 1), torch.rand(5), torch.randn(2, 5, 3, 3),
              torch.randint(0, 5, (2, 3, 3)),
              torch.tensor([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 3, 0, 0], [0, 1, 2, 3, 4]]))
    check_module(ClassLosses(), inputs, tmp_path, path)


class BinaryAndRegressionLosses(torch.nn.Module):
    def forward(self, x, y, prob, target, sign):
        return F.binary_cross_entropy_with_logits(x, target), \
            F.binary_cross_entropy_with_logits(x, target, weight=y.abs(), pos_weight=torch.tensor([1.0, 2, 3, 4]),
                                               reduction="none"), \
            F.binary_cross_entropy(prob, target), F.mse_loss(x, y), F.l1_loss(x, y, reduction="sum"), \
            F.smooth_l1_loss(x, y, beta=0.5), F.huber_loss(x, y, delta=0.7, reduction="none"), \
            F.kl_div(F.log_softmax(x, 1), prob, reduction="batchmean"), F.kl_div(x, y, log_target=True), \
            F.soft_margin_loss(x, sign), F.hinge_embedding_loss(x, sign, margin=0.5), \
            F.margin_ranking_loss(x, y, sign, margin=0.1), F.poisson_nll_loss(x, prob), \
            F.poisson_nll_loss(prob, target * 3, log_input=False, full=True), \
            F.cosine_embedding_loss(x, y, sign[:, 0]), F.triplet_margin_loss(x, y, prob, swap=True)


@pytest.mark.parametrize("path", PATHS)
def test_binary_and_regression_losses(path, tmp_path):
    inputs = (torch.randn(3, 4) * 3, torch.randn(3, 4), torch.rand(3, 4), torch.rand(3, 4),
              torch.tensor([[1.0, -1, 1, -1], [-1, -1, 1, 1], [1, 1, 1, -1]]))
    check_module(BinaryAndRegressionLosses(), inputs, tmp_path, path)


class CtcLosses(torch.nn.Module):
    def forward(self, log_probs, targets, input_lengths, target_lengths):
        ctc = torch.nn.functional.ctc_loss
        return ctc(log_probs, targets, input_lengths, target_lengths, reduction="none"), \
            ctc(log_probs, targets, input_lengths, target_lengths, blank=3), \
            ctc(log_probs * 2, targets, input_lengths, target_lengths, reduction="sum", zero_infinity=True)


@pytest.mark.parametrize("path", ["export", "trace"])
def test_ctc_loss(path, tmp_path):
    """Log probabilities, and unnormalized ones (PyTorch takes them as they are); one target too long
    for its input (an infinite loss, zero with zero_infinity)."""
    log_probs = torch.randn(12, 4, 6).log_softmax(2)
    targets = torch.randint(1, 6, (4, 5))
    targets[1, 1] = 3
    check_module(CtcLosses(), (log_probs, targets, torch.tensor([12, 10, 3, 12]), torch.tensor([5, 3, 4, 1])),
                 tmp_path, path)
