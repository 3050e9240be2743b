#!/usr/bin/env bash
# The README's "run" command: set up (idempotent), then start the web page with our sample
# document preloaded in its text box, and print the URL to open.
#   PORT=9000 bash scripts/run.sh          # another port (default 8000; a free one if 8000 is taken)
#   bash scripts/run.sh --index ~/src/app  # extra arguments go to `ctxmill serve`
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/system-deps.sh --runtime  # Tesseract for scanned PDFs
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
  echo "note: port $PORT is taken; using a free one" >&2
  PORT=0
fi
sample=$(.venv/bin/python -c 'from ctxmill.web.app import find_sample; s = find_sample(); print(s.name if s else "none")')
echo "ctxmill: starting the web page (sample preloaded: $sample); open the URL below, Ctrl-C stops"
exec .venv/bin/ctxmill serve --host "$HOST" --port "$PORT" "$@"
