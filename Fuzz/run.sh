#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a while: Fuzz/run.sh [SECONDS_PER_TARGET] [target…]
#   Fuzz/run.sh                 # every target, 60 s each
#   Fuzz/run.sh 8               # what CI runs after the tests
#   Fuzz/run.sh 600 fuzz-json   # one target, 10 minutes
# Exits 1 when a target crashes or breaks an invariant; the input is left in
# .build-fuzz/crashes/<target>-crash-… (replay it: .build-fuzz/debug/<target> FILE).
# Inputs found along the way go to .build-fuzz/corpus/<target>; the committed seeds in
# Fuzz/corpus/<target> are only read. See Fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# Swift's own crash backtracer fights ASan over the dying process; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no

all_targets=(fuzz-http-request fuzz-http-response fuzz-websocket fuzz-json fuzz-segment fuzz-wire fuzz-keys fuzz-files fuzz-matrix)
seconds="${1:-60}"
if [ "$#" -gt 0 ]; then shift; fi
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "Fuzz/run.sh: SECONDS_PER_TARGET must be a whole number, not '$seconds'" >&2
    exit 64
fi

scratch=.build-fuzz
mkdir -p "$scratch/crashes"
failed=()
for target in "${targets[@]}"; do
    if [ ! -d "Fuzz/Targets/$target" ]; then
        echo "Fuzz/run.sh: no target '$target'; the targets are: ${all_targets[*]}" >&2
        exit 64
    fi
    # The targets exist only with CHATDIR_FUZZ set (see Package.swift). `--sanitize fuzzer` makes
    # SwiftPM leave `main` to libFuzzer; the sanitizers themselves go in ONE -sanitize= flag,
    # because swiftc keeps only the last of several (`--sanitize fuzzer --sanitize address`
    # came out in either order and half the time lost the coverage counters). The linker prints
    # "Cannot export local symbol '__asan_…'" warnings with sanitizers: harmless, kept in the log.
    log="$scratch/build-$target.log"
    if ! CHATDIR_FUZZ=1 swift build --scratch-path "$scratch" --product "$target" \
        --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$log" 2>&1; then
        cat "$log" >&2
        echo "Fuzz/run.sh: building $target failed (log above, also in $log)" >&2
        exit 1
    fi
    corpus="$scratch/corpus/$target"
    mkdir -p "$corpus"
    echo "== $target: ${seconds}s"
    if ! "$scratch/debug/$target" "$corpus" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$scratch/crashes/$target-" 2>"$scratch/run-$target.log"; then
        tail -n 60 "$scratch/run-$target.log" >&2
        failed+=("$target")
    fi
    # Without coverage counters libFuzzer only mutates blindly: say so rather than pass quietly.
    if ! grep -q "inline 8-bit counters" "$scratch/run-$target.log"; then
        echo "Fuzz/run.sh: $target was built without coverage instrumentation; rm -rf $scratch and run again" >&2
        failed+=("$target")
    fi
    # libFuzzer's last status line: executions, coverage (cov) and features (ft).
    grep -E '^#[0-9]+.*(DONE|cov:)' "$scratch/run-$target.log" | tail -n 1 || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$scratch/run-$target.log" || true
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "Fuzz/run.sh: ${failed[*]} crashed or broke an invariant; inputs in $scratch/crashes/" >&2
    exit 1
fi
echo "Fuzz/run.sh: no crash in ${targets[*]}"
