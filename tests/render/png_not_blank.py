#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails unless a PNG screenshot shows a rendered page rather than a blank or broken one.

usage: png_not_blank.py PNG

Decodes the PNG with the standard library only (zlib, struct): 8-bit RGB (colour type 2) or RGBA (6),
not interlaced, all five scanline filters. The image passes when it is at least 800 x 600, at least 2% of
its pixels are not white, it has at least 20 distinct colours, and it holds a patch of the verdict
banner's red or green. Prints what it measured either way.
"""

import collections
import struct
import sys
import zlib

MIN_WIDTH, MIN_HEIGHT = 800, 600
MIN_INK = 0.02  # fraction of pixels that are not white
MIN_COLOURS = 20  # distinct colours
MIN_BANNER_PIXELS = 2000  # red or green pixels: the PASS / FAIL banner is tens of thousands


class NotAPng(Exception):
    pass


def chunks(data):
    """(type, payload) of every chunk after the signature, CRCs checked."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise NotAPng("no PNG signature")
    at = 8
    while at + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        payload = data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        if zlib.crc32(kind + payload) != crc:
            raise NotAPng(f"bad CRC in chunk {kind!r}")
        yield kind, payload
        at += 12 + length
        if kind == b"IEND":
            return
    raise NotAPng("truncated: no IEND chunk")


# Byte-wise sums mod 256 of whole scanlines at once, as big integers (SWAR): None, Sub and Up, the common
# filters, then cost a few integer operations per row instead of a Python loop per byte.
def lanes(n):
    return int.from_bytes(b"\x7f" * n, "little"), int.from_bytes(b"\x80" * n, "little")


def add_bytes(a, b, low, high):
    return ((a & low) + (b & low)) ^ ((a ^ b) & high)


def unfilter_sub(raw, bpp, low, high):
    """Prefix sums per channel (Hillis-Steele over pixels)."""
    n = len(raw)
    x = int.from_bytes(raw, "little")
    mask = low | high
    step = bpp
    while step < n:
        x = add_bytes(x, (x << (8 * step)) & mask, low, high)
        step *= 2
    return x.to_bytes(n, "little")


def unfilter_average(raw, prev, bpp):
    out = bytearray(raw)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
    return bytes(out)


def unfilter_paeth(raw, prev, bpp):
    out = bytearray(raw)
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        out[i] = (out[i] + predictor) & 0xFF
    return bytes(out)


def decode(data):
    """(width, height, bytes per pixel, [scanline bytes]) of an 8-bit RGB or RGBA PNG."""
    header, idat = None, []
    for kind, payload in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", payload)
        elif kind == b"IDAT":
            idat.append(payload)
    if header is None:
        raise NotAPng("no IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6):
        raise NotAPng(f"bit depth {depth}, colour type {colour_type}: only 8-bit RGB (2) and RGBA (6) are decoded")
    if interlace:
        raise NotAPng("interlaced PNGs are not decoded")
    bpp = 3 if colour_type == 2 else 4
    stride = width * bpp
    pixels = zlib.decompress(b"".join(idat))
    if len(pixels) != height * (stride + 1):
        raise NotAPng(f"{len(pixels)} bytes of image data, expected {height * (stride + 1)}")
    low, high = lanes(stride)
    prev = bytes(stride)
    rows = []
    for y in range(height):
        kind = pixels[y * (stride + 1)]
        raw = pixels[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]
        if kind == 0:
            row = raw
        elif kind == 1:
            row = unfilter_sub(raw, bpp, low, high)
        elif kind == 2:
            row = add_bytes(int.from_bytes(raw, "little"), int.from_bytes(prev, "little"), low, high).to_bytes(
                stride, "little"
            )
        elif kind == 3:
            row = unfilter_average(raw, prev, bpp)
        elif kind == 4:
            row = unfilter_paeth(raw, prev, bpp)
        else:
            raise NotAPng(f"unknown filter type {kind} on row {y}")
        rows.append(row)
        prev = row
    return width, height, bpp, rows


def rgb_pixels(row, bpp):
    """The row's pixels as 3-byte RGB, RGBA composited over white."""
    if bpp == 3:
        return [row[i : i + 3] for i in range(0, len(row), 3)]
    if row[3::4].count(255) == len(row) // 4:
        return [row[i : i + 3] for i in range(0, len(row), 4)]
    out = []
    for i in range(0, len(row), 4):
        a = row[i + 3]
        out.append(bytes((c * a + 255 * (255 - a)) // 255 for c in row[i : i + 3]))
    return out


def is_banner_colour(rgb):
    r, g, b = rgb
    red = r >= 150 and g <= 100 and b <= 100
    green = g >= 100 and r <= 80 and b <= 110 and g >= r + 40
    return red or green


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    path = sys.argv[1]
    try:
        with open(path, "rb") as f:
            width, height, bpp, rows = decode(f.read())
    except (OSError, NotAPng, zlib.error, struct.error) as e:
        print(f"FAIL: {path}: {e}")
        return 1
    counts = collections.Counter()
    for row in rows:
        counts.update(rgb_pixels(row, bpp))
    total = width * height
    ink = 1 - counts[b"\xff\xff\xff"] / total
    banner = sum(n for rgb, n in counts.items() if is_banner_colour(rgb))
    print(
        f"{path}: {width} x {height}, {bpp * 8}-bit pixels, {ink:.1%} not white, {len(counts)} colours, "
        f"{banner} red/green banner pixels"
    )
    problems = []
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        problems.append(f"smaller than {MIN_WIDTH} x {MIN_HEIGHT}")
    if ink < MIN_INK:
        problems.append(f"under {MIN_INK:.0%} of the pixels are not white")
    if len(counts) < MIN_COLOURS:
        problems.append(f"fewer than {MIN_COLOURS} distinct colours")
    if banner < MIN_BANNER_PIXELS:
        problems.append(f"fewer than {MIN_BANNER_PIXELS} red or green pixels: no verdict banner")
    for p in problems:
        print(f"FAIL: {p}")
    if not problems:
        print("ok: the page rendered")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
