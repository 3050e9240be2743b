#!/usr/bin/env bash
# Create .venv and install ctxmill (editable) with the extras named on the command line
# (default: test). Used by run.sh, test.sh, screenshots.sh and CI.
#   bash scripts/setup.sh            # ctxmill + its test tools
#   bash scripts/setup.sh test ocr   # and in-process Tesseract (docs/ocr.md)
# pip resolves the whole dependency set on every call (10+ s even when nothing changed), so
# a stamp in .venv records what was installed: the same pyproject.toml, extras and Python
# skip pip entirely. Delete .venv/.ctxmill-setup to force a reinstall.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
extras=$(IFS=,; echo "${*:-test}")
say() { echo "ctxmill setup: $*" >&2; }
if [ ! -x .venv/bin/python ]; then
  say "creating the virtualenv .venv with $("$PY" --version 2>&1) (once)"
  "$PY" -m venv .venv
fi
stamp=.venv/.ctxmill-setup
key="$(.venv/bin/python -c 'import sys; print(sys.version.split()[0])') $(sha256sum pyproject.toml | cut -c1-16)"
# up to date when one stamp line has this key and every wanted extra (test.sh's [test,ocr]
# covers run.sh's [test])
if [ -f "$stamp" ]; then
  while read -r ver hash have; do
    [ "$ver $hash" = "$key" ] || continue
    missing=0
    for e in ${extras//,/ }; do
      case ",$have," in *",$e,"*) ;; *) missing=1 ;; esac
    done
    if [ $missing = 0 ]; then
      say "Python packages up to date (.venv matches pyproject.toml, extras [$extras])"
      exit 0
    fi
  done < "$stamp"
fi
say "installing ctxmill and its Python dependencies [$extras] into .venv from pyproject.toml (pip; ~40 s the first time)"
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[$extras]"
echo "$key $extras" >> "$stamp"
