#!/usr/bin/env bash
# The Pythons the tests run, made on first `npm test` (its pretest), then reused; pip reads the machine's own
# package index or wheel store where it has one.
# - .venv: the verl interop tests (tests/unit/verl-python.ts), with pyarrow, requests and pyyaml. SAILOR_PYTHON
#   set: that interpreter is used instead.
# - .venv-llm: the real OpenAI-compatible server of the endpoint tests (tests/support/llm-server.ts), Hugging Face
#   Transformers' `transformers serve` with CPU torch. SAILOR_LLM_PYTHON set: that interpreter is used instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${SAILOR_PYTHON:-}" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  if ! .venv/bin/python -c "import pyarrow, requests, yaml" 2>/dev/null; then
    echo "tests: installing pyarrow, requests and pyyaml into .venv for the verl interop tests"
    .venv/bin/pip install -q --disable-pip-version-check --retries 0 pyarrow requests pyyaml
  fi
fi

if [ -z "${SAILOR_LLM_PYTHON:-}" ]; then
  [ -x .venv-llm/bin/python ] || python3 -m venv .venv-llm
  if ! .venv-llm/bin/python -c "import torch, transformers, fastapi, uvicorn, openai, requests" 2>/dev/null; then
    echo "tests: installing torch (CPU), transformers, accelerate, fastapi, uvicorn and openai into .venv-llm for the endpoint tests"
    start=$SECONDS
    .venv-llm/bin/pip install -q --disable-pip-version-check --retries 0 torch transformers accelerate fastapi uvicorn openai requests
    echo "tests: .venv-llm ready in $((SECONDS - start)) s"
  fi
fi
