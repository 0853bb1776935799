#!/usr/bin/env bash
# Builds the libFuzzer targets for the C image checkers (Fuzz/c) and runs each for FUZZ_SECONDS.
#
#   Fuzz/run-c.sh                      # png, jpeg and gif, 60 s each, one after another
#   FUZZ_SECONDS=600 Fuzz/run-c.sh jpeg
#   FUZZ_RUNS=10000000 FUZZ_SECONDS=7200 FUZZ_PARALLEL=1 Fuzz/run-c.sh   # 10 million runs each, side by side
#   FUZZ_LIBS=system Fuzz/run-c.sh
#
# Needs a clang with libFuzzer (the Swift toolchain's; CLANG=... to choose) and the -dev packages of libpng,
# libjpeg-turbo and giflib (make deps).
# FUZZ_LIBS=source (the default) links the targets against libpng, libjpeg-turbo and giflib rebuilt from Debian's
# sources with coverage and sanitizers (Fuzz/build-libs.sh, once, about a minute; needs the Debian archive), so
# libFuzzer is guided through the decoders too: about 20 times the coverage, at a fraction of the speed.
# FUZZ_LIBS=system links the installed libraries: far faster, but only nse's own branches guide the fuzzer.
# Inputs that crash, leak, time out or allocate past the limit are written to Fuzz/regressions/<target>/,
# which the Swift test FuzzRegressionTests replays through the checkers: commit them with the fix.
# The working corpus is kept in .build/fuzz-c/<libs>/corpus/<target> between runs. Exit status 1 if any target failed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Swift toolchain ships a clang with libFuzzer beside swift; a system clang may lack it.
if [ -z "${CLANG:-}" ]; then
    swift_path=$(command -v swift || true)
    if [ -n "$swift_path" ] && [ -x "$(dirname "$(readlink -f "$swift_path")")/clang" ]; then
        CLANG="$(dirname "$(readlink -f "$swift_path")")/clang"
    else
        CLANG=clang
    fi
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# Stop after this many runs (0: only the time limit).
FUZZ_RUNS=${FUZZ_RUNS:-0}
# 1: run the targets at the same time (each under nice), for machines with idle cores.
FUZZ_PARALLEL=${FUZZ_PARALLEL:-0}
FUZZ_LIBS=${FUZZ_LIBS:-source}
case "$FUZZ_LIBS" in source|system) ;; *) echo "FUZZ_LIBS must be source or system" >&2; exit 2 ;; esac
OUT=.build/fuzz-c/$FUZZ_LIBS
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(png jpeg gif)

mkdir -p "$OUT"
SYSTEM_LIBS=($(pkg-config --libs libpng libjpeg libisal) -lgif)
if [ "$FUZZ_LIBS" = source ] && ! Fuzz/build-libs.sh .build/fuzz-c/libs "$CLANG"; then
    # No Debian archive (another distribution, no network): fuzzing the checkers over the installed libraries
    # still finds nse's own bugs, so fall back rather than fail.
    echo "warning: could not rebuild the libraries from source; fuzzing against the installed ones" >&2
    FUZZ_LIBS=system
    OUT=.build/fuzz-c/system
    mkdir -p "$OUT"
fi
if [ "$FUZZ_LIBS" = source ]; then
    # The rebuilt headers come first, so each target is compiled against the library it links.
    CFLAGS=(-g -O1 -fno-omit-frame-pointer -I.build/fuzz-c/libs/include -ISources/CNSE/include -ISources/CNSE
            $(pkg-config --cflags libcurl))
    LIBS=(.build/fuzz-c/libs/lib/libpng16.a .build/fuzz-c/libs/lib/libjpeg.a .build/fuzz-c/libs/lib/libgif.a -lz -lisal)
else
    CFLAGS=(-g -O1 -fno-omit-frame-pointer -ISources/CNSE/include -ISources/CNSE
            $(pkg-config --cflags libpng libjpeg libcurl))
    LIBS=("${SYSTEM_LIBS[@]}")
fi

# Seeds: the bundled sample media, sorted by their magic bytes (some have no extension), and small images of
# every kind the checkers branch on, made by the project's own encoders.
SEEDS="$OUT/seeds"
rm -rf "$SEEDS" && mkdir -p "$SEEDS/png" "$SEEDS/jpeg" "$SEEDS/gif"
"$CLANG" -O1 -ISources/CImageFixtures/include -ISources/CImageFixtures Fuzz/c/make_seeds.c \
    Sources/CImageFixtures/{png,jpeg,gif}_fixture.c "${SYSTEM_LIBS[@]}" -o "$OUT/make_seeds"
"$OUT/make_seeds" "$SEEDS/png" "$SEEDS/jpeg" "$SEEDS/gif"
for file in samples/media/*/* samples/media/*; do
    [ -f "$file" ] || continue
    magic=$(head -c 4 "$file" | od -An -tx1 | tr -d ' \n')
    case "$magic" in
        89504e47) cp "$file" "$SEEDS/png/" ;;
        ffd8ff*) cp "$file" "$SEEDS/jpeg/" ;;
        47494638) cp "$file" "$SEEDS/gif/" ;;
    esac
done

# One target: build, fuzz, and print its figures; returns libFuzzer's exit status.
fuzz_target() {
    local format=$1 target="$1_check"
    local binary="$OUT/${target}_fuzz" corpus="$OUT/corpus/$target" regressions="Fuzz/regressions/$target"
    "$CLANG" "${CFLAGS[@]}" -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        "Fuzz/c/${target}_fuzz.c" "Sources/CNSE/${target}.c" Sources/CNSE/png_image_data.c Sources/CNSE/gif_image_data.c Sources/CNSE/cnse_report.c \
        "${LIBS[@]}" -o "$binary"
    mkdir -p "$corpus" "$regressions"
    echo "== $target: up to ${FUZZ_SECONDS}s$([ "$FUZZ_RUNS" -gt 0 ] && echo " or $FUZZ_RUNS runs")"
    # -malloc_limit_mb: twice the targets' 4 MiB memory limit, so one allocation past it is a finding.
    # -timeout: one input taking 60 s of wall-clock time is a finding. The limits keep a run in milliseconds, but the
    # clock is wall time and the fuzzer runs under nice: on a busy machine a starved run once took over 5 s.
    local status=0
    nice -n 19 "$binary" "$corpus" "$SEEDS/$format" "$regressions" \
        -max_total_time="$FUZZ_SECONDS" -runs="$([ "$FUZZ_RUNS" -gt 0 ] && echo "$FUZZ_RUNS" || echo -1)" \
        -timeout=60 -rss_limit_mb=1024 -malloc_limit_mb=8 -max_len=65536 \
        -artifact_prefix="$regressions/" -print_final_stats=1 > "$OUT/$target.log" 2>&1 || status=$?
    local runs rate seconds
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$target.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$OUT/$target.log" | tail -1)
    seconds=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$OUT/$target.log" | tail -1)
    echo "   $target: ${runs:-?} executions in ${seconds:-?} s, ${rate:-?} exec/s, exit $status (log: $OUT/$target.log)"
    if [ "$status" -ne 0 ]; then
        grep -E "^(==[0-9]+==ERROR|SUMMARY|Test unit written|artifact_prefix)" "$OUT/$target.log" | head -5 || true
    fi
    return "$status"
}

for format in "${TARGETS[@]}"; do
    case "$format" in png|jpeg|gif) ;; *) echo "unknown target $format (png, jpeg or gif)" >&2; exit 2 ;; esac
done
failed=()
if [ "$FUZZ_PARALLEL" = 1 ]; then
    pids=()
    for format in "${TARGETS[@]}"; do
        fuzz_target "$format" & pids+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed+=("${TARGETS[$i]}_check")
    done
else
    for format in "${TARGETS[@]}"; do
        fuzz_target "$format" || failed+=("${format}_check")
    done
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]} (inputs in Fuzz/regressions/)" >&2
    exit 1
fi
