"""Lists a zip archive's entries as Python's zipfile reads them (an oracle nobody here wrote).

Usage: zip_entries_oracle.py ARCHIVE. Every entry is read and its CRC checked first (testzip);
then one JSON object per entry, in central directory order: its name, CRC, method, sizes, Unix
mode and the SHA-256 of its data exactly as stored (compressed), found through its local header.
Exit 1 with a message when an entry cannot be read.
"""
import hashlib
import json
import struct
import sys
import zipfile


def main(path):
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
        if bad is not None:
            sys.exit(f"{path}: entry {bad} fails its CRC")
        entries = []
        with open(path, "rb") as raw:
            for info in archive.infolist():
                raw.seek(info.header_offset)
                header = raw.read(30)
                if header[:4] != b"PK\x03\x04":
                    sys.exit(f"{path}: no local header for {info.filename}")
                name_length, extra_length = struct.unpack("<HH", header[26:30])
                raw.seek(info.header_offset + 30 + name_length + extra_length)
                stored = raw.read(info.compress_size)
                entries.append({
                    "name": info.filename,
                    "crc": info.CRC,
                    "method": info.compress_type,
                    "size": info.file_size,
                    "compressed": info.compress_size,
                    "mode": info.external_attr >> 16,
                    "stored_sha256": hashlib.sha256(stored).hexdigest(),
                })
    print(json.dumps(entries))


if __name__ == "__main__":
    main(sys.argv[1])
