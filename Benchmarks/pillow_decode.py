#!/usr/bin/env python3
"""The Pillow floor `make bench` prints: every frame of every listed image fully decoded by Pillow, one at a time.

Reads file paths, one a line, from standard input; decodes each as the peer pipeline does (Image.open, then
load() of every frame) on this one thread, and prints one JSON line: {"images": N, "failed": N, "cpuSeconds": S}.
CPU time, not wall time: divided by the cores it is what the fastest full decode of the corpus could take.
"""
import json
import sys
import time

from PIL import Image, ImageSequence


def main():
    paths = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    failed = 0
    started = time.process_time()
    for path in paths:
        try:
            with Image.open(path) as image:
                for frame in ImageSequence.Iterator(image):
                    frame.load()
        except Exception:  # a corrupt file is decoded as far as it goes, as in the peer
            failed += 1
    print(json.dumps({"images": len(paths), "failed": failed, "cpuSeconds": time.process_time() - started}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
