#!/usr/bin/env python3
"""Independent reading of a Mach-O file for CodeSignTests, written apart from the Swift reader.

Usage: macho_oracle.py FILE  ->  JSON on stdout: {"backend": "lief"|"struct", "slices": [...]}.
Each slice lists its load commands (cmd, size), segments (name, file offset/size, vm address/size)
and LC_CODE_SIGNATURE (offset, size), read with LIEF when it is installed, else with struct; and,
always with struct, the designated requirement decoded to text and the CodeDirectories' fields.
"""
import json
import struct
import sys


def slices(data):
    magic = struct.unpack(">I", data[:4])[0]
    if magic == 0xCAFEBABE:
        count = struct.unpack(">I", data[4:8])[0]
        return [struct.unpack(">iiIII", data[8 + 20 * i:28 + 20 * i])[2:4] for i in range(count)]
    if magic == 0xCAFEBABF:
        count = struct.unpack(">I", data[4:8])[0]
        return [struct.unpack(">iiQQII", data[8 + 32 * i:40 + 32 * i])[2:4] for i in range(count)]
    return [(0, len(data))]


def layout_struct(image):
    is64 = struct.unpack("<I", image[:4])[0] == 0xFEEDFACF
    ncmds = struct.unpack("<I", image[16:20])[0]
    at = 32 if is64 else 28
    commands, segments, signature = [], [], None
    for _ in range(ncmds):
        cmd, size = struct.unpack("<II", image[at:at + 8])
        commands.append([cmd, size])
        if cmd in (0x1, 0x19):
            name = image[at + 8:at + 24].split(b"\0")[0].decode()
            if cmd == 0x19:
                vmaddr, vmsize, fileoff, filesize = struct.unpack("<QQQQ", image[at + 24:at + 56])
            else:
                vmaddr, vmsize, fileoff, filesize = struct.unpack("<IIII", image[at + 24:at + 40])
            segments.append([name, fileoff, filesize, vmaddr, vmsize])
        if cmd == 0x1D:
            signature = list(struct.unpack("<II", image[at + 8:at + 16]))
        at += size
    return commands, segments, signature


def layout_lief(path, index):
    import lief
    fat = lief.MachO.parse(path)
    binary = fat.at(index)
    commands = [[int(c.command), c.size] for c in binary.commands]
    segments = [[s.name, s.file_offset, s.file_size, s.virtual_address, s.virtual_size] for s in binary.segments]
    signature = None
    if binary.has_code_signature:
        signature = [binary.code_signature.data_offset, binary.code_signature.data_size]
    return commands, segments, signature


def oid(body):
    arcs, value = [], 0
    for byte in body:
        value = value << 7 | (byte & 0x7F)
        if not byte & 0x80:
            if not arcs:
                arcs += [min(value // 40, 2), value - 40 * min(value // 40, 2)]
            else:
                arcs.append(value)
            value = 0
    return ".".join(map(str, arcs))


def requirement_text(blob):
    pos = [12]

    def word():
        value = struct.unpack(">I", blob[pos[0]:pos[0] + 4])[0]
        pos[0] += 4
        return value

    def data():
        length = word()
        value = blob[pos[0]:pos[0] + length]
        pos[0] += (length + 3) // 4 * 4
        return value

    def slot():
        value = struct.unpack(">i", struct.pack(">I", word()))[0]
        return {0: "leaf", -1: "root"}.get(value, str(value))

    def quoted(value):
        return '"' + value.decode() + '"'

    def match():
        op = word()
        if op == 0:
            return " /* exists */"
        if op == 1:
            return " = " + quoted(data())
        raise ValueError("match %d not handled by the oracle" % op)

    def expr():
        op = word()
        if op == 6:  # and: the fixtures chain ands to the left, which print without parentheses
            left = expr()
            return left + " and " + expr()
        if op == 2:
            return "identifier " + quoted(data())
        if op == 15:
            return "anchor apple generic"
        if op == 4:
            s = slot()
            return "certificate %s = H\"%s\"" % (s, data().hex())
        if op == 11:
            s = slot()
            field = data().decode()
            return "certificate %s[%s]%s" % (s, field, match())
        if op == 14:
            s = slot()
            return "certificate %s[field.%s]%s" % (s, oid(data()), match())
        raise ValueError("opcode %d not handled by the oracle" % op)

    return expr()


def signature_struct(sig):
    count = struct.unpack(">I", sig[8:12])[0]
    result = {"designated": None, "directories": []}
    for i in range(count):
        kind, offset = struct.unpack(">II", sig[12 + 8 * i:20 + 8 * i])
        magic, length = struct.unpack(">II", sig[offset:offset + 8])
        blob = sig[offset:offset + length]
        if magic == 0xFADE0C01:
            n = struct.unpack(">I", blob[8:12])[0]
            for j in range(n):
                rtype, roffset = struct.unpack(">II", blob[12 + 8 * j:20 + 8 * j])
                if rtype == 3:
                    rlength = struct.unpack(">I", blob[roffset + 4:roffset + 8])[0]
                    result["designated"] = requirement_text(blob[roffset:roffset + rlength])
        if magic == 0xFADE0C02:
            version, flags, hash_offset, ident_offset, n_special, n_code, limit = struct.unpack(">7I", blob[8:36])
            hash_size, hash_type, platform, page = struct.unpack(">4B", blob[36:40])
            team = None
            if version >= 0x20200:
                team_offset = struct.unpack(">I", blob[48:52])[0]
                if team_offset:
                    team = blob[team_offset:].split(b"\0")[0].decode()
            result["directories"].append({
                "slot": kind, "version": version, "flags": flags, "identifier": blob[ident_offset:].split(b"\0")[0].decode(),
                "team": team, "hashType": hash_type, "hashSize": hash_size, "pageSize": page, "special": n_special,
                "code": n_code, "codeLimit": limit})
    return result


def main():
    path = sys.argv[1]
    data = open(path, "rb").read()
    try:
        import lief  # noqa: F401
        backend = "lief"
    except ImportError:
        backend = "struct"
    out = []
    for index, (offset, size) in enumerate(slices(data)):
        image = data[offset:offset + size]
        if backend == "lief":
            commands, segments, signature = layout_lief(path, index)
        else:
            commands, segments, signature = layout_struct(image)
        entry = {"commands": commands, "segments": segments, "signature": signature}
        if signature:
            entry.update(signature_struct(image[signature[0]:signature[0] + signature[1]]))
        out.append(entry)
    print(json.dumps({"backend": backend, "slices": out}))


main()
