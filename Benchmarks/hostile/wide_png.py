"""Writes a 100,000,000 x 1 16-bit RGBA PNG of zeros (800 MB per row, under 1 MB on disk) to the path given."""
import struct
import sys
import zlib


def chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


width = 100_000_000
compressor = zlib.compressobj(9)
parts = [compressor.compress(b"\0")]  # the row's filter byte
block = bytes(8 * 1_000_000)
for _ in range(width * 8 // len(block)):
    parts.append(compressor.compress(block))
parts.append(compressor.flush())
header = struct.pack(">IIBBBBB", width, 1, 16, 6, 0, 0, 0)
with open(sys.argv[1], "wb") as out:
    out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
