#!/usr/bin/env bash
# Debian packages ctxmill uses from outside Python, installed only when missing:
#   tesseract-ocr  OCR of scanned pages (the product; without it image-only pages stay empty and reported)
#   chromium       headless browser for the web page's tests (tests only; skipped with --runtime)
set -euo pipefail
need=()
command -v tesseract >/dev/null || need+=(tesseract-ocr)
if [ "${1:-}" != "--runtime" ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "note: missing system packages ${need[*]} (OCR/browser features and tests will skip)" >&2
  fi
fi
