#!/bin/sh
# The crash-loop soak: N SIGKILLs (default 1000) of `chatdir sync` / `sync --live` against
# `chatdir serve` with every fault on; prints the summary line (kills, messages, lost, doubled,
# unparseable, server duplicates, seconds) and exits non-zero with the seed when a rule broke.
# It runs copies of the binaries, so rebuilding meanwhile does not pull them from under it.
#
#   nice scripts/soak-crash.sh [N] [SEED] [--sigterm]   # e.g. nice scripts/soak-crash.sh 1000
set -eu
cd "$(dirname "$0")/.."
kills=${1:-1000}
swift build --product chatdir >/dev/null
swift build --product crash-loop >/dev/null
bin=$(swift build --show-bin-path)
copy=$(mktemp -d "${TMPDIR:-/tmp}/soak-crash.XXXXXX")
trap 'rm -rf "$copy"' EXIT
cp "$bin/chatdir" "$bin/crash-loop" "$copy/"
"$copy/crash-loop" --kills "$kills" ${2:+--seed "$2"} ${3:+"$3"} --chatdir "$copy/chatdir"
