#!/usr/bin/env python3
"""Regenerates examples/ShoutOut/ShoutOut.app (or writes OUT.app), the prebuilt sample app the demo and tests release:
a binary Info.plist, a real arm64 Mach-O executable (0755), a 180x180 icon, a flat framework with a real arm64
dylib and a symbolic link; with --with-share-extension, also a share extension
(PlugIns/ShoutOutShare.appex) with its own executable. Everything here is written by this script; nothing comes from Apple's tools.

The Mach-O files are unsigned but ready to be signed, as ld64 leaves them: __LINKEDIT is the last
segment and the file ends where it ends, and there is free space between the load commands and the
code for a signer's LC_CODE_SIGNATURE. Their code is a few real arm64 instructions (return 0, or 1
for the framework's one function); nothing links them against a real SDK."""
import argparse
import os
import plistlib
import shutil
import struct
import uuid
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "ShoutOut.app")
VERSION = {"CFBundleShortVersionString": "1.4.0", "CFBundleVersion": "41"}
# IPHONEOS_DEPLOYMENT_TARGET in ShoutOut.xcodeproj is 15.0 and Info.plist's MinimumOSVersion says so;
# the Mach-O files' LC_BUILD_VERSION carries the same minimum, built with the iOS 17.0 SDK.
MIN_OS = (15, 0)
SDK = (17, 0)

# <mach-o/loader.h> values.
MH_MAGIC_64 = 0xFEEDFACF
CPU_TYPE_ARM64 = 0x0100000C
MH_EXECUTE, MH_DYLIB = 0x2, 0x6
MH_NOUNDEFS, MH_DYLDLINK, MH_TWOLEVEL = 0x1, 0x4, 0x80
MH_NO_REEXPORTED_DYLIBS, MH_PIE, MH_APP_EXTENSION_SAFE = 0x100000, 0x200000, 0x02000000
LC_SYMTAB, LC_DYSYMTAB, LC_LOAD_DYLIB, LC_ID_DYLIB, LC_LOAD_DYLINKER = 0x2, 0xB, 0xC, 0xD, 0xE
LC_SEGMENT_64, LC_UUID, LC_FUNCTION_STARTS, LC_DATA_IN_CODE, LC_SOURCE_VERSION = 0x19, 0x1B, 0x26, 0x29, 0x2A
LC_BUILD_VERSION, LC_MAIN = 0x32, 0x80000028
LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS = 0x80000033, 0x80000034
PLATFORM_IOS = 2
N_SECT, N_EXT = 0xE, 0x1
REFERENCED_DYNAMICALLY = 0x10
S_ATTR_PURE_INSTRUCTIONS, S_ATTR_SOME_INSTRUCTIONS = 0x80000000, 0x400
VM_PROT_READ, VM_PROT_EXECUTE = 0x1, 0x4
PAGE = 0x4000  # arm64 pages are 16 KiB
PAGEZERO_SIZE = 0x100000000

# arm64 instructions, little-endian words.
MOV_W0_0 = 0x52800000  # mov w0, #0
MOV_W0_1 = 0x52800020  # mov w0, #1
RET = 0xD65F03C0  # ret


def pad(data, alignment):
    return data + b"\0" * (-len(data) % alignment)


def uleb128(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def version(major, minor=0, patch=0):
    """A packed X.Y.Z version (xxxx.yy.zz) as load commands hold it."""
    return major << 16 | minor << 8 | patch


def segment(name, vmaddr, vmsize, fileoff, filesize, prot, sections=()):
    body = struct.pack("<16sQQQQiiII", name.encode(), vmaddr, vmsize, fileoff, filesize, prot, prot, len(sections), 0)
    return struct.pack("<II", LC_SEGMENT_64, 8 + len(body) + 80 * len(sections)) + body + b"".join(sections)


def section(name, segname, addr, size, offset, align_log2, flags):
    return struct.pack("<16s16sQQIIIIIIII", name.encode(), segname.encode(), addr, size, offset, align_log2, 0, 0, flags, 0, 0, 0)


def string_command(cmd, fixed, text):
    """A load command whose fixed fields `fixed` are followed by a NUL-terminated string, padded to 8."""
    head = 12 + len(fixed)
    raw = text.encode() + b"\0"
    size = head + len(raw) + (-(head + len(raw)) % 8)
    return struct.pack("<III", cmd, size, head) + fixed + raw + b"\0" * (size - head - len(raw))


def linkedit_data(cmd, offset, size):
    return struct.pack("<IIII", cmd, 16, offset, size)


def export_trie(symbols):
    """A trie of `symbols` ({name: offset from the image start}) with one edge per symbol from the root
    (ld64 would share common prefixes; dyld and LIEF walk either). Offsets of child nodes are ULEB128 and depend on their own sizes, so the layout settles in a loop."""
    names = sorted(symbols)
    terminals = [uleb128(0) + uleb128(symbols[n]) for n in names]  # flags EXPORT_SYMBOL_FLAGS_KIND_REGULAR
    nodes = [uleb128(len(t)) + t + b"\0" for t in terminals]  # terminal size, info, no children
    offsets = [0] * len(names)
    while True:
        root = b"\0" + bytes([len(names)]) + b"".join(n.encode() + b"\0" + uleb128(o) for n, o in zip(names, offsets))
        placed, at = [], len(root)
        for node in nodes:
            placed.append(at)
            at += len(node)
        if placed == offsets:
            return pad(root + b"".join(nodes), 8)
        offsets = placed


def chained_fixups(segment_count):
    """A dyld_chained_fixups_header with no imports and no fixups in any segment (every seg_info_offset 0)."""
    starts = struct.pack("<I", segment_count) + b"\0" * 4 * segment_count
    starts_offset = 32
    imports_offset = starts_offset + len(starts)
    symbols_offset = imports_offset
    header = struct.pack("<IIIIIII", 0, starts_offset, imports_offset, symbols_offset, 0, 1, 0)
    return pad(pad(header, 8) + starts + b"\0" * 4, 8)  # then an empty symbol pool


def macho(kind, name, code, symbols, install_name=None):
    """A thin arm64 Mach-O: MH_EXECUTE (kind "execute", entry at the start of `code`) or MH_DYLIB
    (kind "dylib", with `install_name`). `symbols` maps exported names to offsets into `code`."""
    executable = kind == "execute"
    base = PAGEZERO_SIZE if executable else 0
    text_size = PAGE
    code_offset = text_size - len(code)  # ld puts __TEXT's sections at its end; the gap is for the signer
    exported = {n: code_offset + o for n, o in symbols.items()}
    if executable:
        exported["__mh_execute_header"] = 0
    segments_count = 3 if executable else 2

    # __LINKEDIT, in ld64's order: chained fixups, exports trie, function starts, data in code,
    # symbol table, string table.
    names = sorted(exported)
    strings = b" \0"
    string_offsets = {}
    for n in names:
        string_offsets[n] = len(strings)
        strings += n.encode() + b"\0"
    strings = pad(strings, 8)
    nlists = b""
    for n in names:
        desc = REFERENCED_DYNAMICALLY if n == "__mh_execute_header" else 0
        nlists += struct.pack("<IBBHQ", string_offsets[n], N_SECT | N_EXT, 1, desc, base + exported[n])
    function_offsets = sorted(code_offset + o for o in symbols.values())
    starts, previous = b"", 0
    for offset in function_offsets:
        starts += uleb128(offset - previous)
        previous = offset
    parts = [("fixups", chained_fixups(segments_count)), ("trie", export_trie(exported)),
             ("starts", pad(starts + b"\0", 8)), ("dic", b""), ("symbols", nlists), ("strings", strings)]
    linkedit, where = b"", {}
    for part, data in parts:
        where[part] = (text_size + len(linkedit), len(data))
        linkedit += data

    commands = []
    if executable:
        commands.append(segment("__PAGEZERO", 0, PAGEZERO_SIZE, 0, 0, 0))
    text = section("__text", "__TEXT", base + code_offset, len(code), code_offset, 2,
                   S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS)
    commands.append(segment("__TEXT", base, text_size, 0, text_size, VM_PROT_READ | VM_PROT_EXECUTE, [text]))
    linkedit_vmsize = len(linkedit) + (-len(linkedit) % PAGE)
    commands.append(segment("__LINKEDIT", base + text_size, linkedit_vmsize, text_size, len(linkedit), VM_PROT_READ))
    if not executable:
        commands.append(string_command(LC_ID_DYLIB, struct.pack("<III", 1, version(1), version(1)), install_name))
    commands.append(linkedit_data(LC_DYLD_CHAINED_FIXUPS, *where["fixups"]))
    commands.append(linkedit_data(LC_DYLD_EXPORTS_TRIE, *where["trie"]))
    symoff, symsize = where["symbols"]
    stroff, strsize = where["strings"]
    commands.append(struct.pack("<IIIIII", LC_SYMTAB, 24, symoff, len(names), stroff, strsize))
    # Every symbol is an external definition; no locals, undefined or indirect symbols.
    commands.append(struct.pack("<II18I", LC_DYSYMTAB, 80, 0, 0, 0, len(names), len(names), 0, *[0] * 12))
    if executable:
        commands.append(string_command(LC_LOAD_DYLINKER, b"", "/usr/lib/dyld"))
    identity = uuid.uuid5(uuid.NAMESPACE_URL, "https://example.com/shoutout/" + name)
    commands.append(struct.pack("<II16s", LC_UUID, 24, identity.bytes))
    commands.append(struct.pack("<IIIIII", LC_BUILD_VERSION, 24, PLATFORM_IOS, version(*MIN_OS), version(*SDK), 0))
    commands.append(struct.pack("<IIQ", LC_SOURCE_VERSION, 16, 0))
    if executable:
        commands.append(struct.pack("<IIQQ", LC_MAIN, 24, code_offset, 0))
    commands.append(string_command(LC_LOAD_DYLIB, struct.pack("<III", 2, version(1345, 100, 2), version(1)),
                                   "/usr/lib/libSystem.B.dylib"))
    commands.append(linkedit_data(LC_FUNCTION_STARTS, *where["starts"]))
    commands.append(linkedit_data(LC_DATA_IN_CODE, where["dic"][0], 0))

    load_commands = b"".join(commands)
    flags = MH_NOUNDEFS | MH_DYLDLINK | MH_TWOLEVEL
    flags |= MH_PIE if executable else MH_NO_REEXPORTED_DYLIBS | MH_APP_EXTENSION_SAFE
    header = struct.pack("<IiiIIIII", MH_MAGIC_64, CPU_TYPE_ARM64, 0, MH_EXECUTE if executable else MH_DYLIB,
                         len(commands), len(load_commands), flags, 0)
    head = header + load_commands
    assert len(head) + 32 <= code_offset, "no room left for LC_CODE_SIGNATURE"
    return head + b"\0" * (code_offset - len(head)) + code + linkedit


def instructions(*words):
    return b"".join(struct.pack("<I", w) for w in words)


def write(path, data, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)


def binary_plist(path, value):
    write(path, plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))


def png(width, height, pixel):
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def icon(x, y):
    """An orange-to-pink gradient with a white speech bubble."""
    size = 180
    r = 255
    g = int(140 - 90 * y / size)
    b = int(60 + 120 * x / size)
    dx, dy = x - 90, y - 82
    inside_bubble = (dx * dx) / (52 * 52) + (dy * dy) / (40 * 40) <= 1
    tail = 60 <= x <= 80 and 110 <= y <= 140 and (x - 60) >= (y - 110) * 0.6
    if inside_bubble or tail:
        return (255, 255, 255, 255)
    return (r, g, b, 255)


def info(executable, identifier, name, package_type, **extra):
    return {
        "CFBundleDevelopmentRegion": "en",
        **({"CFBundleDisplayName": extra.pop("display_name")} if "display_name" in extra else {}),
        "CFBundleExecutable": executable,
        "CFBundleIdentifier": identifier,
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": name,
        "CFBundlePackageType": package_type,
        **VERSION,
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "DTPlatformName": "iphoneos",
        "MinimumOSVersion": "%d.%d" % MIN_OS,
        **extra,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--with-share-extension", action="store_true",
                        help="also write PlugIns/ShoutOutShare.appex (not in the committed app; see below)")
    parser.add_argument("out", nargs="?", default=APP, help="the .app to write (default: the committed example)")
    arguments = parser.parse_args()
    write_app(arguments.out, arguments.with_share_extension)
    print(arguments.out)


def write_app(app, with_share_extension):
    shutil.rmtree(app, ignore_errors=True)
    os.makedirs(app)
    binary_plist(os.path.join(app, "Info.plist"), info(
        "ShoutOut", "com.example.shoutout", "ShoutOut", "APPL", display_name="ShoutOut", UIDeviceFamily=[1, 2],
        CFBundleIcons={"CFBundlePrimaryIcon": {"CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "AppIcon"}},
        Configuration="Debug"))
    write(os.path.join(app, "ShoutOut"), macho("execute", "ShoutOut", instructions(MOV_W0_0, RET), {"_main": 0}), 0o755)
    write(os.path.join(app, "AppIcon60x60@3x.png"), png(180, 180, icon))

    # The framework is flat, as iOS frameworks are (Info.plist and binary at its top); its binary is a
    # dylib with one function, ShoutKitVersion(), which returns 1. Its strings resource is reached
    # through a symbolic link, so packaging and signing keep a link in a real bundle.
    framework = os.path.join(app, "Frameworks", "ShoutKit.framework")
    dylib = macho("dylib", "ShoutKit", instructions(MOV_W0_1, RET), {"_ShoutKitVersion": 0},
                  install_name="@rpath/ShoutKit.framework/ShoutKit")
    write(os.path.join(framework, "ShoutKit"), dylib, 0o755)
    binary_plist(os.path.join(framework, "Info.plist"), {
        "CFBundleDevelopmentRegion": "en", "CFBundleExecutable": "ShoutKit", "CFBundleIdentifier": "com.example.ShoutKit",
        "CFBundleInfoDictionaryVersion": "6.0", "CFBundleName": "ShoutKit", "CFBundlePackageType": "FMWK",
        "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1", "MinimumOSVersion": "15.0"})
    write(os.path.join(framework, "en.lproj", "Shouts.strings"), b'"shout" = "Shout!";\n', 0o644)
    os.symlink("en.lproj/Shouts.strings", os.path.join(framework, "Shouts.strings"))

    # The share extension, as ShareExtension/Info.plist describes it (display name "Shout"). The
    # committed app leaves it out for now: `release` does not yet carry an app's extensions along (an
    # environment's bundle id is not applied to them and the profile is embedded in the app alone),
    # so AppVerifier rightly stops the release of an app that has one. The re-signing work (issue 18)
    # writes the app with it, into a folder of its own.
    if not with_share_extension:
        return
    appex = os.path.join(app, "PlugIns", "ShoutOutShare.appex")
    binary_plist(os.path.join(appex, "Info.plist"), info(
        "ShoutOutShare", "com.example.shoutout.share", "ShoutOutShare", "XPC!", display_name="Shout", UIDeviceFamily=[1, 2],
        NSExtension={"NSExtensionPointIdentifier": "com.apple.share-services"}))
    write(os.path.join(appex, "ShoutOutShare"), macho("execute", "ShoutOutShare", instructions(MOV_W0_0, RET), {"_main": 0}), 0o755)


if __name__ == "__main__":
    main()
