#!/usr/bin/env python3
"""LIEF's reading of a Mach-O file's layout, for SignedOracleTests (which compare it with a signed copy).

Usage: signed_layout_oracle.py FILE  ->  JSON on stdout:
{"size": file size, "fat": [[offset, size, align], ...] or null,
 "slices": [{"cpu": cputype, "offset": fat offset, "commands": [[cmd, hex of the command's bytes], ...],
             "segments": [[name, fileoff, filesize, vmaddr, vmsize], ...], "signature": [dataoff, datasize] or null}]}
The fat header's align is read with struct (LIEF does not show it); everything else with LIEF.
Exits 3 when LIEF is not installed.
"""
import json
import struct
import sys

try:
    import lief
except ImportError:
    sys.exit(3)


def fat_architectures(data):
    magic = struct.unpack(">I", data[:4])[0]
    if magic == 0xCAFEBABE:
        count = struct.unpack(">I", data[4:8])[0]
        return [list(struct.unpack(">iiIII", data[8 + 20 * i:28 + 20 * i])[2:5]) for i in range(count)]
    if magic == 0xCAFEBABF:
        count = struct.unpack(">I", data[4:8])[0]
        return [list(struct.unpack(">iiQQII", data[8 + 32 * i:40 + 32 * i])[2:5]) for i in range(count)]
    return None


def main():
    path = sys.argv[1]
    data = open(path, "rb").read()
    fat = lief.MachO.parse(path)
    slices = []
    for index in range(fat.size):
        binary = fat.at(index)
        signature = None
        if binary.has_code_signature:
            signature = [binary.code_signature.data_offset, binary.code_signature.data_size]
        slices.append({
            "cpu": int(binary.header.cpu_type),
            "offset": binary.fat_offset,
            "commands": [[int(c.command), bytes(c.data).hex()] for c in binary.commands],
            "segments": [[s.name, s.file_offset, s.file_size, s.virtual_address, s.virtual_size] for s in binary.segments],
            "signature": signature,
        })
    print(json.dumps({"size": len(data), "fat": fat_architectures(data), "slices": slices}))


main()
