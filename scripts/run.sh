#!/usr/bin/env bash
# The README's "run" command: set up what is missing, then start the web page with our sample
# document preloaded in its text box, and print the URL to open. Each step says what it
# installs and why before it does; a second start with nothing changed installs nothing.
#   PORT=9000 bash scripts/run.sh          # another port (default 8000; a free one if 8000 is taken)
#   bash scripts/run.sh --index ~/src/app  # extra arguments go to `ctxmill serve`
set -euo pipefail
cd "$(dirname "$0")/.."
echo "ctxmill: [1/3] Python: ctxmill and its dependencies in .venv (pip, only when pyproject.toml changed)" >&2
bash scripts/setup.sh
echo "ctxmill: [2/3] system: Tesseract for scanned PDFs (apt-get, only when the tesseract command is missing)" >&2
bash scripts/system-deps.sh --runtime
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
  echo "note: port $PORT is taken; using a free one" >&2
  PORT=0
fi
echo "ctxmill: [3/3] starting the web page (sample preloaded: src/ctxmill/samples/tidal-caching.txt); open the URL below, Ctrl-C stops" >&2
exec .venv/bin/ctxmill serve --host "$HOST" --port "$PORT" "$@"
