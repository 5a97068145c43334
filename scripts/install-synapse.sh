#!/usr/bin/env bash
# Installs the Synapse homeserver the Matrix tests run against: a Python virtual environment
# with matrix-synapse from PyPI (about 30 s and 240 MB, wheels only), at
# $CHATDIR_SYNAPSE_VENV or ~/.cache/chatdir/synapse-venv, where the tests look for it.
# Running it again when that version is installed does nothing.
#
#   scripts/install-synapse.sh
#
# The version is pinned so a test run means the same thing on every machine; the tests start a
# throwaway homeserver per suite on loopback (Tests/ChatTestSupport/Synapse.swift).
set -euo pipefail

version=1.163.2
venv="${CHATDIR_SYNAPSE_VENV:-$HOME/.cache/chatdir/synapse-venv}"

if "$venv/bin/python" -c "import synapse, sys; sys.exit(synapse.__version__ != '$version')" 2>/dev/null; then
    exit 0
fi
if ! python3 -c "import venv, ensurepip" 2>/dev/null; then
    echo "install-synapse.sh: python3 cannot make a virtual environment; install python3-venv" >&2
    exit 69
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "matrix-synapse==$version"
"$venv/bin/python" -c "import synapse; print('Synapse', synapse.__version__, 'in $venv')"
