#!/usr/bin/env python3
"""Rewrites the JSON header of a sparselocal checkpoint file (lib/train/checkpoint_file.h:
"SLCKPT1\\n" | u64 header bytes | header JSON | arrays | u64 FNV-1a | "SLEND\\n") with a new
checksum, to make the files older versions wrote or damaged ones. Prints the header's "meta"
when given no edits.
Usage: ckpt_header.py IN [OUT [--drop KEY]... [--set KEY=JSON]...]"""
import json
import struct
import sys

MAGIC, END = b"SLCKPT1\n", b"SLEND\n"


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    args = sys.argv[1:]
    data = open(args[0], "rb").read()
    assert data.startswith(MAGIC) and data.endswith(END), "not a checkpoint"
    (hlen,) = struct.unpack_from("<Q", data, len(MAGIC))
    start = len(MAGIC) + 8
    header = json.loads(data[start:start + hlen])
    arrays = data[start + hlen:len(data) - len(END) - 8]
    if len(args) == 1:
        print(json.dumps(header["meta"]))
        return
    out, edits = args[1], args[2:]
    for flag, value in zip(edits[::2], edits[1::2]):
        if flag == "--drop":
            header["meta"].pop(value, None)
        elif flag == "--set":
            key, text = value.split("=", 1)
            header["meta"][key] = json.loads(text)
        else:
            sys.exit("unknown flag " + flag)
    h = json.dumps(header, separators=(",", ":")).encode()
    body = MAGIC + struct.pack("<Q", len(h)) + h + arrays
    open(out, "wb").write(body + struct.pack("<Q", fnv1a(body)) + END)


main()
