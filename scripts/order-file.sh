#!/bin/sh
# Writes scripts/link/chatdir.order: the functions the commands people run most (view, list,
# send, search, --help) execute, which the release link (Package.swift) places side by side at
# the start of .text with lld's --symbol-ordering-file.
#
# Why: every page fault on the binary's code makes the kernel map the 64 KiB around it (fault-
# around), and a page-cache copy of the binary read back from disk is held in 4 KiB folios,
# each mapped and unmapped one by one. Start-up code scattered over 8 MB of text touched 71
# such windows (about 1,300 pages mapped for one `view`); gathered, far fewer
# (BENCHMARKS.md, "Process start").
#
# Run it after a change that moves the start-up path (new commands, renamed types); a stale
# file costs speed, never correctness: names that no longer exist are skipped at link time.
# Needs valgrind (callgrind), nm and a release build of chatdir (it makes one).
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "order-file.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
CHATDIR_RELEASE=1 swift build -c release --product chatdir --disable-local-rpath >/dev/null
binary=$(swift build -c release --show-bin-path)/chatdir
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" seed "$work/store" --conversations 3 --messages 2000 --members 5 >/dev/null

profile() {
    NO_COLOR=1 valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.cg" "$binary" "$@" >/dev/null 2>&1 || true
}
# One profile per command; the first argument names the output file and is the command.
profile view --store "$work/store" c1 --limit 50
profile list --store "$work/store"
profile send --store "$work/store" c1 on my way
profile search --store "$work/store" --count pizza
profile --help

# The names callgrind saw, each once, in the order it first named them (about the order they
# first ran: the start-up path first), kept only where the binary defines them. Ordered so, a
# view took 7 page faults fewer than with the same names sorted.
nm "$binary" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$work/defined"
for command in view list send search --help; do
    sed -n -E 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$work/$command.cg"
done | awk '!seen[$0]++' > "$work/executed"
grep -Fxf "$work/defined" "$work/executed" > scripts/link/chatdir.order
echo "scripts/link/chatdir.order: $(wc -l < scripts/link/chatdir.order) functions of $(wc -l < "$work/executed") executed"
# SwiftPM does not know the link reads this file: remove the binary so the next build links anew.
rm -f "$binary"
