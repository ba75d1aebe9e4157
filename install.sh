#!/usr/bin/env bash
# Installs everything the converter and its tests use, from the repository root:
#   .venv           the converter (editable), the frameworks, the OpenVINO runtime and its clients,
#                   the test tools (pip install -e ".[all]")
#   .venv-optimum   optimum-intel, whose only release (2.2.0) needs transformers < 5.6: its own
#                   transformers, optimum and optimum-intel, every other package (torch 2.13.0,
#                   openvino ...) shared from .venv through a .pth file; torchvision, which it
#                   lists but does not use for causal LMs, is removed (it has no CPU build here)
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"

"$PYTHON" -m venv .venv
.venv/bin/pip install -q -e ".[all]"

"$PYTHON" -m venv .venv-optimum
shared=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
own=$(.venv-optimum/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
echo "$shared" > "$own/mo_shared_venv.pth"
constraints=$(mktemp)
trap 'rm -f "$constraints"' EXIT
echo "torch==2.13.0" > "$constraints"
.venv-optimum/bin/pip install -q -c "$constraints" "transformers==5.5.4" "huggingface-hub<1.22" \
    "optimum==2.3.0" "optimum-intel==2.2.0"
.venv-optimum/bin/pip uninstall -q -y torchvision
.venv-optimum/bin/python -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__; \
from optimum.intel import OVModelForCausalLM"
