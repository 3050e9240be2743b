#!/usr/bin/env bash
# Debian packages the tests need (headless Chromium for the browser tests; Tesseract for OCR of
# scanned pages). Skipped when present.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v tesseract >/dev/null || need+=(tesseract-ocr)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: missing system packages ${need[*]} (browser/OCR tests will skip)" >&2
  fi
fi
