#!/usr/bin/env bash
# Debian packages ctxmill uses from outside Python, installed only when missing (nothing is
# run, not even apt-get update, when the commands are already there):
#   tesseract-ocr  OCR of scanned pages (the product; without it image-only pages stay empty and reported)
#   chromium       headless browser for the web page's tests (tests only; skipped with --runtime)
set -euo pipefail
need=()
command -v tesseract >/dev/null || need+=(tesseract-ocr)
if [ "${1:-}" != "--runtime" ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
fi
if [ ${#need[@]} -eq 0 ]; then
  if [ "${1:-}" = "--runtime" ]; then have=tesseract; else have="tesseract, chromium"; fi
  echo "ctxmill setup: system packages present ($have)" >&2
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "ctxmill setup: installing ${need[*]} with apt-get (tesseract: OCR of scanned PDFs; chromium: the browser tests) -- once, ~1 min" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "note: missing system packages ${need[*]} (run as root to install them with apt-get; OCR/browser features and tests skip without them)" >&2
fi
