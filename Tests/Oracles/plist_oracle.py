#!/usr/bin/env python3
"""An independent oracle for adhocbuild's plist codecs, built on Python's plistlib.

  plist_oracle.py generate DIR COUNT SEED
      Writes case_N.xml and case_N.bin (plistlib's XML and binary writers) and
      case_N.expect.json, a type-tagged description of the value that the Swift tests
      compare with what they read. Values are random but seeded: all plist kinds,
      nesting, unicode (astral planes included), the full integer range, special reals.

  plist_oracle.py check DIR
      Loads every ours_N.xml / ours_N.bin that the Swift side wrote back with plistlib and
      compares each with case_N.expect.json, strictly (types, exact float bits).
      Prints 'N checked, M failed' and the first failures; exits 1 on any failure.

Tagged form: {"s": str} {"i": "decimal"} {"r": float.hex()} {"b": bool} {"d": "ISO8601Z"}
{"x": "hex bytes"} {"a": [...]} {"o": [[key, value], ...]} {"u": int}
"""
import datetime
import json
import math
import os
import plistlib
import random
import sys

EPOCH = datetime.datetime(1970, 1, 1)


def random_string(rng):
    pools = [
        "abcdefghijklmnopqrstuvwxyz",
        "ABCXYZ0123456789 _-.:/",
        "&<>\"'",
        "\t\n",
        "éüñßøÅ",
        "日本語中文한국어",
        "Ωπσ",
        "🚀🎉👍🏽",
        "\u00a0\u2028\u200b",
    ]
    length = rng.choice([0, 1, 2, 5, 10, 30])
    return "".join(rng.choice(rng.choice(pools)) for _ in range(length))


def random_scalar(rng):
    kind = rng.randrange(7)
    if kind == 0:
        return random_string(rng)
    if kind == 1:
        edge = [0, 1, -1, 255, 256, 65535, 65536, 2**31, 2**32 - 1, 2**32, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]
        if rng.random() < 0.3:
            return rng.choice(edge)
        return rng.randint(-(2**63), 2**64 - 1) >> rng.randrange(64)
    if kind == 2:
        specials = [0.0, -0.0, 1.0, 0.5, 1e-300, 5e-324, 1.7976931348623157e308, math.inf, -math.inf, math.nan, 0.1, 1e16]
        if rng.random() < 0.3:
            return rng.choice(specials)
        return rng.uniform(-1, 1) * 10 ** rng.randint(-20, 20)
    if kind == 3:
        return rng.random() < 0.5
    if kind == 4:
        return EPOCH + datetime.timedelta(seconds=rng.randint(0, 2**31 - 1))
    if kind == 5:
        return rng.randbytes(rng.choice([0, 1, 2, 3, 10, 57, 100]))
    return random_string(rng)


def random_value(rng, depth):
    if depth > 0 and rng.random() < 0.45:
        if rng.random() < 0.5:
            return [random_value(rng, depth - 1) for _ in range(rng.randrange(6))]
        result = {}
        for _ in range(rng.randrange(7)):
            result[random_string(rng)] = random_value(rng, depth - 1)
        return result
    return random_scalar(rng)


def tag(value):
    if isinstance(value, bool):
        return {"b": value}
    if isinstance(value, int):
        return {"i": str(value)}
    if isinstance(value, float):
        return {"r": "nan" if math.isnan(value) else value.hex()}
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, datetime.datetime):
        return {"d": value.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if isinstance(value, bytes):
        return {"x": value.hex()}
    if isinstance(value, list):
        return {"a": [tag(v) for v in value]}
    if isinstance(value, dict):
        return {"o": [[k, tag(v)] for k, v in value.items()]}
    if isinstance(value, plistlib.UID):
        return {"u": value.data}
    raise TypeError(type(value))


def same(a, b, path="root"):
    """Strict equality: types, exact float bits, key order ignored. Returns a difference or None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"
    if isinstance(a, float):
        if math.isnan(a) and math.isnan(b):
            return None
        return None if a.hex() == b.hex() else f"{path}: {a!r} != {b!r}"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{path}:{i}")
            if d:
                return d
        return None
    if isinstance(a, dict):
        if set(a) != set(b):
            return f"{path}: keys {sorted(set(a) ^ set(b))!r} differ"
        for k in a:
            d = same(a[k], b[k], f"{path}:{k}")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def untag(t):
    (kind, v), = t.items()
    if kind == "b":
        return v
    if kind == "i":
        return int(v)
    if kind == "r":
        return math.nan if v == "nan" else float.fromhex(v)
    if kind == "s":
        return v
    if kind == "d":
        return datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%SZ")
    if kind == "x":
        return bytes.fromhex(v)
    if kind == "a":
        return [untag(x) for x in v]
    if kind == "o":
        return {k: untag(x) for k, x in v}
    if kind == "u":
        return plistlib.UID(v)
    raise ValueError(kind)


def generate(directory, count, seed):
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(seed)
    for n in range(count):
        root = random_value(rng, 6)
        if n % 3 == 0:  # most real plists have a dictionary at the root
            root = {"root": root, random_string(rng): random_value(rng, 3)}
        xml = plistlib.dumps(root, fmt=plistlib.FMT_XML, sort_keys=False)
        binary = plistlib.dumps(root, fmt=plistlib.FMT_BINARY, sort_keys=False)
        with open(os.path.join(directory, f"case_{n}.xml"), "wb") as f:
            f.write(xml)
        with open(os.path.join(directory, f"case_{n}.bin"), "wb") as f:
            f.write(binary)
        # The expectation is what plistlib itself reads back. Its binary writer uniques equal
        # numbers as Core Foundation does, so a -0.0 beside a 0.0 comes back as 0.0; the XML
        # keeps it. Where the two differ, the binary file gets an expectation of its own.
        from_xml, from_binary = plistlib.loads(xml), plistlib.loads(binary)
        with open(os.path.join(directory, f"case_{n}.expect.json"), "w") as f:
            json.dump(tag(from_xml), f)
        if same(from_xml, from_binary):
            with open(os.path.join(directory, f"case_{n}.bin.expect.json"), "w") as f:
                json.dump(tag(from_binary), f)
    print(f"{count} generated")


def check(directory):
    checked = 0
    failures = []
    for name in sorted(os.listdir(directory)):
        if not name.startswith("ours_"):
            continue
        n = name[len("ours_"):].split(".")[0]
        with open(os.path.join(directory, f"case_{n}.expect.json")) as f:
            expected = untag(json.load(f))
        checked += 1
        try:
            with open(os.path.join(directory, name), "rb") as f:
                actual = plistlib.load(f)
        except Exception as e:  # noqa: BLE001 - any failure to load is a finding
            failures.append(f"{name}: plistlib cannot load it: {e}")
            continue
        diff = same(expected, actual)
        if diff:
            failures.append(f"{name}: {diff}")
    for line in failures[:20]:
        print(line)
    print(f"{checked} checked, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit("usage: plist_oracle.py generate DIR COUNT SEED | check DIR")
