#!/usr/bin/env bash
# The Python the verl interop tests run (tests/unit/verl-python.ts): a .venv beside package.json with pyarrow,
# requests and pyyaml. Made on first `npm test` (its pretest), then reused; pip reads the machine's own
# package index or wheel store where it has one. SAILOR_PYTHON set: that interpreter is used instead.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${SAILOR_PYTHON:-}" ] && exit 0
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import pyarrow, requests, yaml" 2>/dev/null && exit 0
echo "tests: installing pyarrow, requests and pyyaml into .venv for the verl interop tests"
.venv/bin/pip install -q --disable-pip-version-check --retries 0 pyarrow requests pyyaml
