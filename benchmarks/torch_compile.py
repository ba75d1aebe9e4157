"""torch.compile backends side by side: eager PyTorch, backend="mo" and OpenVINO's own
backend="openvino", on a BERT-base-sized transformer and a ResNet-50-sized CNN (random weights).

Each child process builds the model (random weights, fixed seed) and loads Dynamo, mo and openvino
on a tiny model first. The first call of each backend (Dynamo capture + lowering + conversion +
OpenVINO compilation + one inference: the user's "compile time") is timed in a child process of
its own: a backend compiled after another in the same process finds Dynamo's caches of the
model's source (tokenized files, bytecode analysis) warm, which would favour the later one. One
more child compiles every backend, checks its output against eager PyTorch and takes the
steady-state latency, the median of ``--iterations`` calls per backend, in turns so that the
load of a shared machine hits every backend alike. Both OpenVINO backends run on CPU with
float32 inference precision (``--precision`` changes it), so they compute the same thing.

    python benchmarks/torch_compile.py [--iterations 20] [--models bert,resnet50] [--precision f32]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKENDS = ("eager", "mo", "openvino")

CHILD = r"""
import copy, json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
import torch
sys.path.insert(0, {root!r})
from benchmarks.torch_compile import compile_with, build
model_name, iterations, precision, backends = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(",")
tiny = torch.nn.Linear(4, 4).eval()
with torch.no_grad():   # load Dynamo, mo and openvino before timing: the first call times the model alone
    for backend in ("mo", "openvino"):
        compile_with(copy.deepcopy(tiny), backend, precision)(torch.randn(2, 4))
model, inputs = build(model_name)
with torch.no_grad():
    expected = model(*inputs)
results = {{}}
runs = {{}}
for backend in backends:
    fresh = copy.deepcopy(model)
    with torch.no_grad():
        start = time.perf_counter()
        try:
            run = compile_with(fresh, backend, precision)
            out = run(*inputs)
        except Exception as e:
            results[backend] = {{"error": f"{{type(e).__name__}}: {{str(e).strip().splitlines()[-1][:200]}}"}}
            continue
        first = time.perf_counter() - start
    runs[backend] = run
    results[backend] = {{"first": first, "times": [],
                        "diff": ((out - expected).abs().max() / expected.abs().max()).item()}}
if iterations == 0:   # first calls only
    runs = {{}}
with torch.no_grad():
    for backend, run in runs.items():
        for _ in range(3):
            run(*inputs)
    for _ in range(iterations):   # interleaved, so that the machine's load hits every backend alike
        for backend, run in runs.items():
            start = time.perf_counter()
            run(*inputs)
            results[backend]["times"].append(time.perf_counter() - start)
for r in results.values():
    times = r.pop("times", None)
    if times:
        r["latency"] = statistics.median(times)
print(json.dumps(results))
"""


def compile_with(model, backend: str, precision: str):
    import torch
    if backend == "eager":
        return model
    if backend == "mo":
        from mo.torch_backend import mo_backend
        if "mo" not in torch._dynamo.list_backends(exclude_tags=()):   # before mo is installed with its entry point
            torch._dynamo.register_backend(mo_backend, "mo")
        return torch.compile(model, backend="mo", options={"device": "CPU", "inference_precision": precision})
    import openvino.torch  # noqa: F401  (registers backend="openvino")
    return torch.compile(model, backend="openvino",
                         options={"device": "CPU", "config": {"INFERENCE_PRECISION_HINT": precision}})


def build(name: str):
    """(model in eval mode, positional inputs) with random weights, seeded."""
    import torch
    torch.manual_seed(0)
    if name == "bert":
        import transformers

        class Bert(torch.nn.Module):   # the last hidden state as a plain tensor
            def __init__(self):
                super().__init__()
                self.bert = transformers.BertModel(transformers.BertConfig())

            def forward(self, input_ids, attention_mask):
                return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

        return Bert().eval(), (torch.randint(0, 30522, (1, 128)), torch.ones(1, 128, dtype=torch.long))
    if name == "resnet50":
        model = resnet50_like()
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.1, 0.1)
                module.running_var.uniform_(0.5, 1.5)
        return model.eval(), (torch.randn(1, 3, 224, 224),)
    raise ValueError(f"unknown model {name}")


def resnet50_like():
    """ResNet-50's layout (bottleneck blocks 3, 4, 6, 3; 25.6 M weights) from torch.nn layers."""
    import torch
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.body = nn.Sequential(
                nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, width, 3, stride, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.down = (nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                         if stride != 1 or cin != cout else nn.Identity())

        def forward(self, x):
            return torch.relu(self.body(x) + self.down(x))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def _child(model: str, iterations: int, precision: str, backends) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD.format(root=ROOT), model, str(iterations), precision,
                           ",".join(backends)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{model} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(model: str, iterations: int, precision: str) -> dict:
    """Per backend: ``first`` (its own process), ``latency`` and ``diff``, or ``error``."""
    results = _child(model, iterations, precision, BACKENDS)
    for backend in BACKENDS:
        if "error" not in results[backend]:
            alone = _child(model, 0, precision, [backend])[backend]
            results[backend].update(alone if "error" in alone else {"first": alone["first"]})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--models", default="bert,resnet50")
    parser.add_argument("--precision", default="f32")
    args = parser.parse_args()
    print(f"{'model':10s} {'backend':10s} {'first call s':>13s} {'latency ms':>11s} {'max rel diff':>13s}")
    for model in args.models.split(","):
        for backend, r in measure(model, args.iterations, args.precision).items():
            if "error" in r:
                print(f"{model:10s} {backend:10s} failed: {r['error']}")
                continue
            print(f"{model:10s} {backend:10s} {r['first']:13.2f} {r['latency'] * 1000:11.1f} {r['diff']:13.2e}",
                  flush=True)


if __name__ == "__main__":
    main()
