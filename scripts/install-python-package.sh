#!/usr/bin/env bash
# Installs one pinned PyPI package into a Python virtual environment of its own, the way
# scripts/install-synapse.sh and scripts/install-matrix-nio.sh need it: nothing is done when
# that version is installed there already; otherwise the environment is made afresh.
#
#   scripts/install-python-package.sh VENV PACKAGE VERSION
set -euo pipefail

if [ $# -ne 3 ]; then
    echo "usage: $0 VENV PACKAGE VERSION" >&2
    exit 64
fi
venv=$1 package=$2 version=$3
name=$(basename "$0")

installed() {
    "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null
}

if installed; then
    exit 0
fi
if ! python3 -c "import venv, ensurepip" 2>/dev/null; then
    echo "$name: python3 cannot make a virtual environment; install python3-venv" >&2
    exit 69
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "$package==$version"
installed
echo "$package $version in $venv"
