#!/usr/bin/env bash
# Installs matrix-nio, the Python Matrix client library that chatdir-bench's Matrix rows time a
# first sync against (bench/matrix_nio_pager.py; BENCHMARKS.md, "Matrix"): a Python virtual
# environment with matrix-nio from PyPI (about 10 s, wheels only, no end-to-end encryption
# extras), at $CHATDIR_NIO_VENV or ~/.cache/chatdir/nio-venv, where the bench looks for it.
# Running it again when that version is installed does nothing. No test needs it.
#
#   scripts/install-matrix-nio.sh
set -euo pipefail

version=0.26.0
venv="${CHATDIR_NIO_VENV:-$HOME/.cache/chatdir/nio-venv}"

if "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('matrix-nio') != '$version')" 2>/dev/null; then
    exit 0
fi
if ! python3 -c "import venv, ensurepip" 2>/dev/null; then
    echo "install-matrix-nio.sh: python3 cannot make a virtual environment; install python3-venv" >&2
    exit 69
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "matrix-nio==$version"
"$venv/bin/python" -c "import importlib.metadata as m; print('matrix-nio', m.version('matrix-nio'), 'in $venv')"
