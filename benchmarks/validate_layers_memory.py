"""Peak memory and time of --validate_layers on a BERT-base-sized ONNX model, beside --validate.

Builds transformers' BertModel with the BERT-base configuration (12 layers, hidden size 768,
110 M random weights, 415 MiB in float32) exported to ONNX with dynamic batch and sequence, then
converts it (float32 weights) as a whole process with: --validate (the outputs only);
--validate_layers (every tensor with a counterpart, in runs of at most ``CHUNK_BYTES`` of
values, the default); and --validate_layers in one run (``CHUNK_BYTES`` set above the total, i.e.
every tensor exposed at once, which chunking avoids), each at the sequence lengths given. Prints
wall time and peak resident memory from the kernel's rusage of each process (the memory-mapped
model and IR weights count in it once their pages are read).

    python benchmarks/validate_layers_memory.py [--sequence 128 512] [--repeat 1]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from convert_resnet50_onnx import build_in_child  # noqa: E402
from measure import production_env, run_measured  # noqa: E402

# mo's command line with the chunk size of --validate_layers set first (bytes, argv[1])
WITH_CHUNK = ("import sys; sys.path.insert(0, {root!r}); from mo.runtime import layers; "
              "layers.CHUNK_BYTES = int(sys.argv.pop(1)); from mo.main import main; sys.exit(main(sys.argv[1:]))")


def build_bert(path: str) -> int:
    """Export BERT-base to ``path``; returns the number of weight bytes."""
    import warnings

    import torch
    import transformers
    sys.path.insert(0, ROOT)
    from tests.utils.onnx_zoo import export
    warnings.simplefilter("ignore")
    torch.manual_seed(0)
    model = transformers.BertModel(transformers.BertConfig()).eval()

    class FirstOutput(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = model

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)[0]
    ids, mask = torch.randint(0, 30522, (1, 16)), torch.ones(1, 16, dtype=torch.long)
    export(FirstOutput(), (ids, mask), path, ["input_ids", "attention_mask"],
           {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}})
    return sum(p.numel() * p.element_size() for p in model.parameters())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequence", type=int, nargs="+", default=[128, 512])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "benchmarks", "results"))
    parser.add_argument("--build-only", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        print(build_bert(args.build_only))
        return
    os.makedirs(args.workdir, exist_ok=True)
    model = os.path.join(args.workdir, "bert_base.onnx")
    weights = int(build_in_child(__file__, model))
    print(f"model: {model} ({weights / 2**20:.0f} MiB weights)")
    out = tempfile.mkdtemp(prefix="mo_bench_")
    print(f"{'sequence':>8s}  {'mode':34s} {'best wall s':>11s} {'peak RSS MiB':>13s}")
    try:
        for sequence in args.sequence:
            common = [model, "--output_dir", out, "--compress_to_fp16=False",
                      "--validate_shapes", f"input_ids[1,{sequence}],attention_mask[1,{sequence}]"]
            mo = [sys.executable, os.path.join(ROOT, "mo.py")]
            whole = [sys.executable, "-c", WITH_CHUNK.format(root=ROOT), str(1 << 40)]
            modes = {"--validate": mo + common + ["--validate"],
                     "--validate_layers (chunks, default)": mo + common + ["--validate_layers"],
                     "--validate_layers (one run)": whole + common + ["--validate_layers"]}
            for label, cmd in modes.items():
                runs = [run_measured(cmd, production_env()) for _ in range(args.repeat)]
                print(f"{sequence:8d}  {label:34s} {min(r.wall for r in runs):11.1f} "
                      f"{max(r.peak for r in runs) / 2**20:13.0f}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
