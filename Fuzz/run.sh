#!/usr/bin/env bash
# `make fuzz`: builds the Swift fuzz targets with libFuzzer and AddressSanitizer, runs each for FUZZ_SECONDS and
# prints its executions and executions per second; then the C checkers' targets (Fuzz/run-c.sh) if present.
#
#   Fuzz/run.sh                          # every target, 60 s each
#   FUZZ_SECONDS=600 Fuzz/run.sh lint    # one Swift target (payload, fcm, lint, media); png, jpeg, gif go to run-c.sh
#   FUZZ_RUNS=10000000 FUZZ_SECONDS=7200 Fuzz/run.sh fcm   # stop after that many runs (or the time limit)
#
# Inputs that crash, trap, leak or hang are written to Fuzz/regressions/<target>/; FuzzTargetRegressionTests
# replays every file there in `make test`, so commit them with the fix. The working corpus stays in
# .build-fuzz/corpus/<target> between runs. Exit status 1 if any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# Stop after this many runs (0: only the time limit), as in Fuzz/run-c.sh.
FUZZ_RUNS=${FUZZ_RUNS:-0}
SCRATCH=.build-fuzz
SWIFT_TARGETS=(payload fcm lint media)
C_TARGETS=(png jpeg gif)

swift_selected=()
c_selected=()
requested=("$@")
[ ${#requested[@]} -gt 0 ] || requested=("${SWIFT_TARGETS[@]}" "${C_TARGETS[@]}")
for name in "${requested[@]}"; do
    case " ${SWIFT_TARGETS[*]} " in *" $name "*) swift_selected+=("$name"); continue ;; esac
    case " ${C_TARGETS[*]} " in *" $name "*) c_selected+=("$name"); continue ;; esac
    echo "unknown target $name (${SWIFT_TARGETS[*]} ${C_TARGETS[*]})" >&2
    exit 2
done

failed=()
if [ ${#swift_selected[@]} -gt 0 ]; then
    # libFuzzer without its main: SwiftPM links executables with `--defsym main=<module>_main`, which clashes
    # with the `main` that `-sanitize=fuzzer` brings, so nse-fuzz calls LLVMFuzzerRunDriver itself. The coverage
    # options are the ones `-sanitize=fuzzer` turns on.
    toolchain_lib="$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib"
    libfuzzer=$(ls "$toolchain_lib"/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
    echo "== building nse-fuzz (release, AddressSanitizer, libFuzzer) in $SCRATCH"
    "$SWIFT" build -c release --product nse-fuzz --scratch-path "$SCRATCH" \
        -Xswiftc -DFUZZING -Xswiftc -sanitize=address \
        -Xswiftc -sanitize-coverage=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table \
        -Xlinker "$libfuzzer" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol '__asan_extra_spill_area'"
    binary="$SCRATCH/release/nse-fuzz"

    for target in "${swift_selected[@]}"; do
        corpus="$SCRATCH/corpus/$target"
        regressions="Fuzz/regressions/$target"
        mkdir -p "$corpus" "$regressions"
        # Seeds: the bundled samples and the JSON the tests use (Fuzz/seeds/json, taken from Tests/), or the
        # hand-made responses of Fuzz/seeds/media.
        case "$target" in
            media) cp Fuzz/seeds/media/* "$corpus/" ;;
            *) cp samples/payloads/* Fuzz/seeds/json/* "$corpus/" ;;
        esac
        log="$SCRATCH/$target.log"
        echo "== $target: up to ${FUZZ_SECONDS}s$([ "$FUZZ_RUNS" -gt 0 ] && echo " or $FUZZ_RUNS runs")"
        # -timeout: an input still running after 60 s is a hang (the slowest take milliseconds; on a loaded shared
        # machine a niced process can stall for seconds, so a tighter limit reports the machine, and so would
        # libFuzzer's slow-unit files, written after 10 s by default); -max_len covers
        # a payload past APNs' largest limit (5 KB) several times over.
        set +e
        nice -n 19 "$binary" "$target" "$corpus" "$regressions" \
            -max_total_time="$FUZZ_SECONDS" -runs="$([ "$FUZZ_RUNS" -gt 0 ] && echo "$FUZZ_RUNS" || echo -1)" -timeout=60 -report_slow_units=60 -rss_limit_mb=2048 -max_len=16384 \
            -artifact_prefix="$regressions/" -print_final_stats=1 > "$log" 2>&1
        status=$?
        set -e
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
        echo "   $target: ${runs:-?} executions in ${seconds:-?} s, ${rate:-?} exec/s, exit $status (log: $log)"
        if [ "$status" -ne 0 ]; then
            failed+=("$target")
            grep -E "^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*Precondition failed|Test unit written)" "$log" | head -5 || true
        fi
    done
fi

if [ ${#c_selected[@]} -gt 0 ]; then
    if [ -x Fuzz/run-c.sh ]; then
        FUZZ_SECONDS="$FUZZ_SECONDS" FUZZ_RUNS="$FUZZ_RUNS" Fuzz/run-c.sh "${c_selected[@]}" || failed+=("C checkers")
    else
        echo "== no Fuzz/run-c.sh: the C checkers' targets (${c_selected[*]}) are skipped"
    fi
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]} (inputs in Fuzz/regressions/)" >&2
    exit 1
fi
