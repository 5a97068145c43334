#!/usr/bin/env bash
# Installs matrix-nio, the Python Matrix client library that chatdir-bench's Matrix rows time a
# first sync against (bench/matrix_nio_pager.py; BENCHMARKS.md, "Matrix"): a Python virtual
# environment with matrix-nio from PyPI (about 10 s, wheels only, no end-to-end encryption
# extras), at $CHATDIR_NIO_VENV or ~/.cache/chatdir/nio-venv, where the bench looks for it.
# Running it again when that version is installed does nothing. No test needs it.
#
#   scripts/install-matrix-nio.sh
set -euo pipefail

exec "$(dirname "$0")/install-python-package.sh" \
    "${CHATDIR_NIO_VENV:-$HOME/.cache/chatdir/nio-venv}" matrix-nio 0.26.0
