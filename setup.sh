#!/usr/bin/env bash
# Set up scan-solve on Debian (run as root, or with sudo available):
#   - system packages: tesseract-ocr (a supported OCR engine) and the fonts the test bed renders with;
#   - a virtual environment in .venv with scan-solve installed (editable) and its test tools.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PYTHON="$candidate"; break; fi
  done
fi
[ -n "$PYTHON" ] || { echo "setup.sh: no python3 found (Python 3.11 or newer is needed)" >&2; exit 1; }

packages=(tesseract-ocr tesseract-ocr-eng fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 fonts-noto-core)
if ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
  packages+=(python3-venv)
fi
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.scan-solve-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # tesserocr (Tesseract in-process, for the page-turn words) is an extra: where it cannot be installed (no
  # binary wheel for this machine), scan-solve works without it and asks the tesseract program instead
  if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test,ocr]"; then
    echo "setup.sh: tesserocr could not be installed; the tesseract program reads the page's words instead" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
  fi
  touch "$stamp"
fi
