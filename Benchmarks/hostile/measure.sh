#!/usr/bin/env bash
# Makes the hardening issue's hostile images and measures `nse process` on each (time, peak RSS, diagnostic),
# as in the README's "Image checks" table. Not part of the tests or CI: the "before" figures took minutes.
#
#   Benchmarks/hostile/measure.sh [NSE_BINARY]        # default .build/release/nse
set -euo pipefail
cd "$(dirname "$0")/../.."
NSE=${1:-.build/release/nse}
WORK=.build/hostile
mkdir -p "$WORK/media/img" "$WORK/payloads"
FIX=Sources/CImageFixtures
if [ ! -f "$WORK/media/img/gif-5000-frames-1000.gif" ]; then
    cc -O2 -I"$FIX/include" -I"$FIX" Benchmarks/hostile/make_hostile.c "$FIX"/{png,jpeg,gif}_fixture.c \
        $(pkg-config --libs libpng libjpeg) -lgif -o "$WORK/make_hostile"
    "$WORK/make_hostile" "$WORK/media/img"
    python3 Benchmarks/hostile/wide_png.py "$WORK/media/img/wide-16bit-rgba.png"
fi
for image in "$WORK"/media/img/*; do
    name=$(basename "$image")
    payload="$WORK/payloads/${name%.*}.json"
    printf '{"aps":{"alert":{"title":"t","body":"b"},"mutable-content":1},"fcm_options":{"image":"https://cdn.example.com/img/%s"}}\n' "$name" > "$payload"
    printf '%s (%s bytes): ' "$name" "$(stat -c %s "$image")"
    /usr/bin/time -f "%e s, %M KB" -o "$WORK/time.txt" "$NSE" process "$payload" --media "$WORK/media" \
        --time-budget 600 --format json > "$WORK/result.json" || true
    codes=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(d["code"] for d in r["diagnostics"]) or "no diagnostics", "| image shown:", r.get("imageShown"))' "$WORK/result.json")
    echo "$(tail -1 "$WORK/time.txt"), $codes"
done
