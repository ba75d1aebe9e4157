"""Conversion time and peak memory of a BERT-base-sized PyTorch model, mo beside openvino.convert_model.

Builds transformers' BertModel with the BERT-base configuration (12 layers, hidden size 768,
12 heads, vocabulary 30522; 110 M random weights, about 420 MB in float32), traces it with
torch.jit.trace on a [1, 128] batch of token ids and an attention mask and saves it as a
TorchScript file. Then it converts that file with ``python mo.py`` and with
``openvino.convert_model`` (which takes model objects, so its process loads the file with
torch.jit.load first), each as a whole process, a few times, with float32 weights kept on both
sides, and prints wall time and peak resident memory (from the kernel's rusage of each child
process) plus the IR layer counts. The model is built in a child process too, so this process
stays small and the measured children do not inherit a large address space.

    python benchmarks/convert_bert_pytorch.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from convert_resnet50_onnx import build_in_child, print_comparison  # noqa: E402

SEQUENCE = 128
INPUT = f"input_ids[1,{SEQUENCE}]{{i64}},attention_mask[1,{SEQUENCE}]{{i64}}"

# the openvino.convert_model side: load the TorchScript file, convert, save the IR
OPENVINO_SCRIPT = """
import sys, torch, openvino as ov
model = torch.jit.load(sys.argv[1])
example = (torch.zeros(1, {n}, dtype=torch.long), torch.ones(1, {n}, dtype=torch.long))
ov_model = ov.convert_model(model, example_input=example)
ov.save_model(ov_model, sys.argv[2], compress_to_fp16=False)
""".format(n=SEQUENCE)


def build_bert(path: str) -> int:
    """Trace BERT-base and save it to ``path``; returns the number of weight bytes."""
    import warnings

    import torch
    import transformers
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    model = transformers.BertModel(transformers.BertConfig()).eval()
    inputs = {"input_ids": torch.randint(0, 30522, (1, SEQUENCE)),
              "attention_mask": torch.ones(1, SEQUENCE, dtype=torch.long)}
    with torch.no_grad():
        traced = torch.jit.trace(model, example_kwarg_inputs=inputs, strict=False)
    torch.jit.save(traced, path)
    return sum(p.numel() * p.element_size() for p in model.parameters())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        print(build_bert(args.build_only))
        return
    os.makedirs(args.workdir, exist_ok=True)
    model = os.path.join(args.workdir, "bert_base.pt")
    weights = int(build_in_child(__file__, model))
    print(f"model: {model} ({os.path.getsize(model) / 2**20:.0f} MiB file, {weights / 2**20:.0f} MiB weights)")
    out = tempfile.mkdtemp(prefix="mo_bench_")
    converters = {
        "mo": [sys.executable, os.path.join(ROOT, "mo.py"), "--input_model", model, "--input", INPUT,
               "--output_dir", os.path.join(out, "mo"), "--compress_to_fp16=False"],
        "openvino": [sys.executable, "-c", OPENVINO_SCRIPT, model, os.path.join(out, "openvino", "bert_base.xml")],
    }
    print_comparison(converters, out, "bert_base.xml", args.repeat)
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
