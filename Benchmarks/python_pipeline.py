#!/usr/bin/env python3
"""The comparison `make bench` runs: what a team would write in Python to check a folder of pushes.

For every .json/.apns file under PAYLOADS: read it, download fcm_options.image with requests (one Session per
worker thread, streamed to disk, stopped past 10 MB), hash it, decode every frame with Pillow, and write
OUT/<relative path>/content.json plus the attachment, atomically. A ThreadPoolExecutor runs --workers at once;
Pillow and hashlib release the GIL while they work, so decoding uses every core.

Prints one JSON line at the end: {"payloads": N, "passed": N, "failed": N, "peakMemoryBytes": N}.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import requests
from PIL import Image, ImageSequence

IMAGE_LIMIT = 10_000_000
_local = threading.local()


def session():
    if not hasattr(_local, "session"):
        _local.session = requests.Session()
    return _local.session


def discover(root):
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and name.lower().endswith((".json", ".apns")):
                found.append(os.path.join(folder, name))
    return sorted(found, key=lambda path: os.path.relpath(path, root).encode())


def write_atomically(path, data):
    temporary = path + ".tmp"
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)


def process(path, root, out):
    folder = os.path.join(out, os.path.relpath(path, root))
    os.makedirs(folder, exist_ok=True)
    result = {"input": path, "imageShown": False, "errors": []}
    try:
        with open(path, "rb") as handle:
            payload = json.load(handle)
        url = payload["fcm_options"]["image"]
        extension = os.path.splitext(urlparse(url).path)[1] or ".bin"
        attachment = os.path.join(folder, "attachment" + extension)
        temporary = attachment + ".tmp"
        digest = hashlib.sha256()
        size = 0
        with session().get(url, stream=True, timeout=30) as response:
            if response.status_code != 200:
                raise ValueError(f"HTTP {response.status_code}")
            with open(temporary, "wb") as handle:
                for chunk in response.iter_content(65536):
                    size += len(chunk)
                    if size > IMAGE_LIMIT:
                        raise ValueError("larger than 10 MB")
                    digest.update(chunk)
                    handle.write(chunk)
        with Image.open(temporary) as image:
            frames = 0
            for frame in ImageSequence.Iterator(image):
                frame.load()
                frames += 1
            result.update(width=image.width, height=image.height, frames=frames, bytes=size, sha256=digest.hexdigest())
        os.replace(temporary, attachment)
        result["imageShown"] = True
    except Exception as error:  # every failure is a result, as in nse
        result["errors"].append(f"{type(error).__name__}: {error}")
    write_atomically(os.path.join(folder, "content.json"), json.dumps(result).encode())
    return result["imageShown"]


def peak_memory():
    """VmHWM, as nse reports it: this process's own peak resident memory."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("payloads")
    parser.add_argument("out")
    parser.add_argument("--workers", type=int, default=8)
    arguments = parser.parse_args()
    files = discover(arguments.payloads)
    with ThreadPoolExecutor(max_workers=arguments.workers) as pool:
        passed = sum(pool.map(lambda path: process(path, arguments.payloads, arguments.out), files))
    print(json.dumps({"payloads": len(files), "passed": passed, "failed": len(files) - passed, "peakMemoryBytes": peak_memory()}))
    return 0 if passed == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
