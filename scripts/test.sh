#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# opt-in extras the tests exercise: in-process Tesseract (docs/ocr.md)
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[ocr]"
bash scripts/system-deps.sh
exec .venv/bin/python -m pytest "$@"
