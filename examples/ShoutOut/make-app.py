#!/usr/bin/env python3
"""Regenerates examples/ShoutOut/ShoutOut.app, the prebuilt sample app the demo and tests release:
a binary Info.plist, a placeholder executable (0755), a 180x180 icon and a framework laid out with
symlinks. Everything here is written by this script; nothing comes from Apple's tools."""
import os
import plistlib
import shutil
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
APP = os.path.join(HERE, "ShoutOut.app")


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


def main():
    shutil.rmtree(APP, ignore_errors=True)
    os.makedirs(APP)
    info = {
        "CFBundleDevelopmentRegion": "en",
        "CFBundleDisplayName": "ShoutOut",
        "CFBundleExecutable": "ShoutOut",
        "CFBundleIdentifier": "com.example.shoutout",
        "CFBundleInfoDictionaryVersion": "6.0",
        "CFBundleName": "ShoutOut",
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": "1.4.0",
        "CFBundleVersion": "41",
        "CFBundleSupportedPlatforms": ["iPhoneOS"],
        "DTPlatformName": "iphoneos",
        "MinimumOSVersion": "15.0",
        "UIDeviceFamily": [1, 2],
        "CFBundleIcons": {"CFBundlePrimaryIcon": {"CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "AppIcon"}},
        "Configuration": "Debug",
    }
    with open(os.path.join(APP, "Info.plist"), "wb") as f:
        plistlib.dump(info, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
    executable = os.path.join(APP, "ShoutOut")
    with open(executable, "w") as f:
        f.write("#!/bin/sh\n# A placeholder for the app's Mach-O executable.\necho ShoutOut\n")
    os.chmod(executable, 0o755)
    with open(os.path.join(APP, "AppIcon60x60@3x.png"), "wb") as f:
        f.write(png(180, 180, icon))
    framework = os.path.join(APP, "Frameworks", "ShoutKit.framework")
    version = os.path.join(framework, "Versions", "A")
    os.makedirs(os.path.join(version, "Resources"))
    with open(os.path.join(version, "ShoutKit"), "w") as f:
        f.write("placeholder for the framework's binary\n")
    os.chmod(os.path.join(version, "ShoutKit"), 0o755)
    with open(os.path.join(version, "Resources", "Info.plist"), "wb") as f:
        plistlib.dump({"CFBundleIdentifier": "com.example.ShoutKit", "CFBundleVersion": "1"}, f, fmt=plistlib.FMT_BINARY)
    os.symlink("A", os.path.join(framework, "Versions", "Current"))
    os.symlink("Versions/Current/ShoutKit", os.path.join(framework, "ShoutKit"))
    os.symlink("Versions/Current/Resources", os.path.join(framework, "Resources"))
    print(APP)


if __name__ == "__main__":
    main()
