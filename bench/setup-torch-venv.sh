#!/usr/bin/env bash
# The PyTorch people install today, for bench/run-all's comparison column: PyTorch 2.x from
# pip (MKL + oneDNN; the wheel pulls CUDA libraries, ~5 GB on disk) in a venv, kept out of CI.
#   bench/setup-torch-venv.sh [VENV_DIR]      (default bench/.venv-torch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=${1:-$here/.venv-torch}
py=python3
if ! "$py" -m venv --help >/dev/null 2>&1; then
  echo "setup-torch-venv: python3 -m venv is missing (apt-get install python3-venv)" >&2; exit 2
fi
"$py" -m venv "$venv"
"$venv/bin/pip" install --upgrade pip >/dev/null
# sentencepiece + sacrebleu: the issue-12 learning-curve references in bench/torch/textbook_*.py
"$venv/bin/pip" install torch numpy sentencepiece sacrebleu
"$venv/bin/python" -c 'import torch; print("torch", torch.__version__, "in", torch.__file__)'
