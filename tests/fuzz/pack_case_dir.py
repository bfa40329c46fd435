#!/usr/bin/env python3
"""Packs case directories into case_dir_fuzz inputs: records [file index][u16 LE length][bytes].

Usage: pack_case_dir.py CASE_DIR OUT_FILE   (file indices as in case_dir_fuzz.cpp's case_files)
"""

import pathlib
import struct
import sys

CASE_FILES = [
    "case.json",
    "x.npy",
    "a.npy",
    "b.npy",
    "h0.npy",
    "dh.npy",
    "dh_last.npy",
    "dy.npy",
    "a_param.npy",
    "a_imag_param.npy",
    "a_gate_w.npy",
    "a_gate_b.npy",
    "input_gate_w.npy",
    "input_gate_b.npy",
    "segment_pos.npy",
    "unexpected.npy",
]


def pack(case_dir: pathlib.Path) -> bytes:
    out = bytearray()
    for path in sorted(case_dir.iterdir()):
        data = path.read_bytes()
        if len(data) > 0xFFFF:
            sys.exit(f"{path}: {len(data)} bytes; a record holds at most 65535 (use a smaller case)")
        out += struct.pack("<BH", CASE_FILES.index(path.name), len(data)) + data
    return bytes(out)


if __name__ == "__main__":
    pathlib.Path(sys.argv[2]).write_bytes(pack(pathlib.Path(sys.argv[1])))
