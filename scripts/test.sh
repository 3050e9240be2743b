#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite. The suite writes only to temporary
# folders: `git status` is as clean afterwards as before (CI checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
# the test tools, and the opt-in extras the tests exercise: in-process Tesseract (docs/ocr.md),
# the team store on a real PostgreSQL + pgvector (docs/team.md)
bash scripts/setup.sh test ocr team
bash scripts/system-deps.sh
exec .venv/bin/python -m pytest "$@"
