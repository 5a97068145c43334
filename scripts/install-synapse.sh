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

exec "$(dirname "$0")/install-python-package.sh" \
    "${CHATDIR_SYNAPSE_VENV:-$HOME/.cache/chatdir/synapse-venv}" matrix-synapse 1.163.2
