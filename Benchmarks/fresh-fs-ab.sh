#!/usr/bin/env bash
# A/B of nse binaries with their results on a fresh ext4 for every run (needs root: mkfs, mount).
#
# Why: on this project's machine the disk is a journal-less ext4, which skips recently freed inodes when it makes
# new ones, so each run's deletions slow the next and A/B runs on it drift (docs/performance.md, "How to measure").
# Here every run gets a new file system in an image file, optionally after DIRTY files were made and deleted.
#
#   Benchmarks/fresh-fs-ab.sh unique|latency ROUNDS journal|nojournal BIN...
#
# CORPUS is a corpus nse-bench made (default /dev/shm/bc: `nse-bench --corpus /dev/shm/bc` once). unique: `nse batch`
# over its unique pushes at --jobs 256, the images served from the corpus by `--media`. latency: nse-bench's latency
# workload, its corpus copied onto the new file system. Prints wall and CPU seconds per run.
set -euo pipefail
workload=$1 rounds=$2 journal=$3; shift 3
image=${IMAGE:-/tmp/nse-fresh-fs.img} mountpoint=${MOUNTPOINT:-/mnt/nse-fresh-fs}
bench=$(dirname "$0")/../.build/release/nse-bench
mkdir -p "$mountpoint"
truncate -s 4G "$image"
trap 'umount "$mountpoint" 2>/dev/null || true' EXIT
for _ in $(seq "$rounds"); do
  for bin in "$@"; do
    umount "$mountpoint" 2>/dev/null || true
    if [ "$journal" = nojournal ]; then mkfs.ext4 -F -q -O ^has_journal "$image"; else mkfs.ext4 -F -q "$image"; fi
    mount -o loop "$image" "$mountpoint"
    if [ "$workload" = latency ]; then
      mkdir -p "$mountpoint/bc" && cp -r "${CORPUS:-/dev/shm/bc}/latency" "$mountpoint/bc/"
    fi
    if [ -n "${DIRTY:-}" ]; then
      mkdir -p "$mountpoint/junk/folders"
      (cd "$mountpoint/junk" && seq 1 "$DIRTY" | xargs touch && for k in $(seq 300); do mkdir "folders/$k"; done)
      rm -rf "$mountpoint/junk"
    fi
    sync
    if [ "$workload" = latency ]; then
      out=$("$bench" --nse "$bin" --corpus "$mountpoint/bc" --workload latency --python "" --repeats 1 2>&1)
      echo "$(basename "$bin") $journal dirty=${DIRTY:-0}: $(echo "$out" | awk '/nse batch/ {print "wall", $4, "s, cpu", $9, "s"}')"
    else
      corpus=${CORPUS:-/dev/shm/bc}
      /usr/bin/time -f "%e %U %S" -o "$mountpoint/time" "$bin" batch "$corpus/payloads-unique" --media "$corpus" \
        --out "$mountpoint/out" --jobs 256 --allow-http --quiet >/dev/null 2>&1 || true
      echo "$(basename "$bin") $journal dirty=${DIRTY:-0}: $(tail -1 "$mountpoint/time" | awk '{printf "wall %s s, cpu %.2f s", $1, $2 + $3}')"
    fi
  done
done
