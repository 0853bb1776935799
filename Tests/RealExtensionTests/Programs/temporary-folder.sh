#!/bin/sh
# Stands for a built extension that writes into NSTemporaryDirectory() (TMPDIR): says where, leaves a file there.
printf '%s' "$TMPDIR" > "$(dirname "$1")/tmpdir.txt"
[ -n "$TMPDIR" ] && : > "$TMPDIR/left-behind.png"
exit 0
