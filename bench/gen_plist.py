#!/usr/bin/env python3
"""Writes a deterministic plist of about TARGET_MB megabytes (XML) and its binary form.

Usage: gen_plist.py OUT_DIR [TARGET_MB] [SEED]
The shape is Info.plist-like and CodeResources-like: many dictionaries of short strings,
integers, reals, bools, dates and base64 data, with repeated keys and values (so uniquing
matters) and some unicode.
"""
import datetime
import os
import plistlib
import random
import sys


def make_record(rng, i):
    words = ["alpha", "beta", "gamma", "delta", "Ωmega", "naïve", "東京", "emoji-🚀", "path/to/file.png"]
    return {
        "identifier": f"com.example.app{i % 5000}",
        "name": f"{rng.choice(words)} {i}",
        "version": f"{rng.randint(0, 9)}.{rng.randint(0, 99)}.{rng.randint(0, 999)}",
        "build": rng.randint(0, 2**40),
        "negative": -rng.randint(0, 2**62),
        "ratio": rng.random() * 10 ** rng.randint(-10, 10),
        "enabled": rng.random() < 0.5,
        "created": datetime.datetime(2000, 1, 1) + datetime.timedelta(seconds=rng.randint(0, 10**9)),
        "hash": rng.randbytes(20),
        "tags": [rng.choice(words) for _ in range(rng.randint(0, 6))],
        "nested": {"level": rng.randint(0, 3), "empty": {}, "list": [], "flag": True},
    }


def main():
    out_dir = sys.argv[1]
    target = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng = random.Random(seed)
    os.makedirs(out_dir, exist_ok=True)
    # Estimate the record size, then build enough records to reach the target.
    sample = plistlib.dumps({"r": [make_record(random.Random(0), i) for i in range(200)]})
    per_record = len(sample) / 200
    count = int(target * 1_000_000 / per_record)
    root = {"records": [make_record(rng, i) for i in range(count)], "count": count, "seed": seed}
    xml_path = os.path.join(out_dir, "large.xml.plist")
    bin_path = os.path.join(out_dir, "large.binary.plist")
    with open(xml_path, "wb") as f:
        plistlib.dump(root, f, fmt=plistlib.FMT_XML, sort_keys=False)
    with open(bin_path, "wb") as f:
        plistlib.dump(root, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
    print(f"{xml_path}: {os.path.getsize(xml_path)} bytes; {bin_path}: {os.path.getsize(bin_path)} bytes")


if __name__ == "__main__":
    main()
