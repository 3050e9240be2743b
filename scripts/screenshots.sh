#!/usr/bin/env bash
# Refresh the screenshots the docs show (docs/screenshots/*.png): the browser tests take
# them, written here instead of to the temporary folder a plain test run uses (so that
# `bash scripts/test.sh` never rewrites tracked files). Commit the result yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/system-deps.sh
mkdir -p docs/screenshots
CTXMILL_SCREENSHOTS="$PWD/docs/screenshots" .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_web_browser.py "$@"
git status --short docs/screenshots
