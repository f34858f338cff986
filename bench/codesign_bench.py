"""`codesign verify` against its peers and the hashing limit (bench.py --only codesign; issue 30).

A ~200 MB app with a valid ad-hoc seal (bench/gen_signed_app.py: a 60 MB arm64 executable signed
with a SHA-256 CodeDirectory and a SHA-1 alternate, ~6,400 sealed resources, mostly small, as in a
real app) is verified as a folder and as an .ipa made by `adhocbuild package`; each must report the
seal valid. Each verify runs in turns with a peer that reads the same input: the folder beside
`openssl dgst -sha256` over every file of the app in two processes, the ipa beside `unzip -tq`;
the ratio is the peer's time over verify's, the median of the pairs, with both commands' CPU and
verify's peak memory. What starting alone costs is printed beside it (`adhocbuild --version` against
`openssl version`): the folder's peer starts two processes side by side, verify one that loads the
libraries the binary links (libcurl and the 27 it needs are loaded only when a request is sent).
The hashing limit is the time libcrypto needs on every core for exactly the digests the seal makes
a verifier compute: SHA-256 of every file sealed with a hash2 (SHA-1 where a seal holds only that),
and every page of the strongest CodeDirectory in its hash (the one codesign checks code by); the rates come from `openssl speed -multi
CORES -evp` in this run, at 16 KiB blocks for files and 4 KiB for pages (the best of a few tries).
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def openssl_rate(algorithm, block, cores, tries=3):
    """Bytes per second of `openssl speed -evp ALGORITHM` on `cores` processes at `block` bytes."""
    best = 0.0
    for _ in range(tries):
        command = ["openssl", "speed", "-seconds", "1", "-bytes", str(block), "-evp", algorithm]
        if cores > 1:
            command[2:2] = ["-multi", str(cores)]
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        # The last table row: "sha256   1505523.20k" (thousands of bytes per second).
        rows = [line for line in output.splitlines() if re.match(rf"^(evp_)?{algorithm}\s+[\d.]+k", line.strip())]
        if not rows:
            sys.exit(f"bench: cannot read `{' '.join(command)}`:\n{output}")
        best = max(best, float(rows[-1].split()[-1].rstrip("k")) * 1000)
    return best


# Bumped when gen_signed_app.py makes another shape, so an app left by an older run is made again.
SHAPE = 2


def generate(out):
    """The signed app (made once per SHAPE) and what its seal covers."""
    app = os.path.join(out, "Bench.app")
    summary = os.path.join(out, "seal.txt")
    if not os.path.exists(summary) or f" shape {SHAPE}\n" not in open(summary).read():
        if os.path.exists(out):
            subprocess.run(["rm", "-rf", out], check=True)
        os.makedirs(out)
        line = subprocess.run([sys.executable, os.path.join(HERE, "gen_signed_app.py"), out, "60", "140", "7"],
                              capture_output=True, text=True, check=True).stdout.strip()
        with open(summary, "w") as f:
            f.write(f"{line} shape {SHAPE}\n")
    fields = open(summary).read().split()
    values = dict(zip(fields[1::2], fields[2::2]))
    return app, {k: int(v) for k, v in values.items()}


def peer_lists(app, out, processes):
    """Every regular file of `app` in `processes` NUL-separated lists of about equal bytes (largest
    file first, each to the lightest list); returns their paths."""
    files = []
    for folder, _, names in os.walk(app):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files.append((os.path.getsize(path), path))
    lists = [[0, []] for _ in range(processes)]
    for size, path in sorted(files, reverse=True):
        lightest = min(lists, key=lambda entry: entry[0])
        lightest[0] += size
        lightest[1].append(path)
    result = []
    for index, (_, paths) in enumerate(lists):
        listing = os.path.join(out, f"peer-files-{index}.txt")
        text = "".join(path + "\0" for path in sorted(paths))
        # One openssl process per list: xargs must fit it in one command line.
        if len(text.encode()) >= XARGS_SIZE - 4096:
            sys.exit(f"bench: {len(paths)} paths do not fit one command line of {XARGS_SIZE} bytes")
        with open(listing, "w") as f:
            f.write(text)
        result.append(listing)
    return result


# The command line xargs may build (Linux allows 2 MB with a small environment).
XARGS_SIZE = 1 << 20


def openssl_peer_command(app, out, processes=2):
    """`openssl dgst -sha256` over every file of the app in `processes` processes at once, each
    given half the bytes (the peer issue 30 names)."""
    script = " & ".join(f"xargs -0 -s {XARGS_SIZE} openssl dgst -sha256 < '{listing}' > /dev/null"
                        for listing in peer_lists(app, out, processes))
    return ["sh", "-c", script + "; wait"]


def run_once(command):
    """(wall seconds, user+system CPU seconds, peak RSS bytes) of one run, from /usr/bin/time."""
    with tempfile.NamedTemporaryFile(mode="r") as report:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", report.name] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed: {result.stderr.decode(errors='replace')}")
        user, system, kilobytes = report.read().split()[-3:]
    return seconds, float(user) + float(system), int(kilobytes) * 1024


def check_valid(adhocbuild, target):
    """Verify must call the generated seal valid (exit 0), or the timing means nothing."""
    result = subprocess.run([adhocbuild, "codesign", "verify", target], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench: codesign verify {target} did not find the seal valid (exit {result.returncode}):\n"
                 f"{result.stdout}{result.stderr}")
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""


def codesign(bin_dir, runs):
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    out = os.path.join(HERE, "out", "codesign")
    app, seal = generate(out)
    ipa = os.path.join(out, "Bench.ipa")
    if not os.path.exists(ipa):
        subprocess.run([adhocbuild, "package", app, "-o", ipa, "-q"], check=True)
    cores = os.cpu_count() or 1
    rates = {
        ("sha256", "files"): openssl_rate("sha256", 16384, cores),
        ("sha1", "files"): openssl_rate("sha1", 16384, cores),
        ("sha256", "pages"): openssl_rate("sha256", 4096, cores),
        ("sha1", "pages"): openssl_rate("sha1", 4096, cores),
    }
    parts = [
        ("sha256", "files", seal["sealed-sha256"]),
        ("sha1", "files", seal["sealed-sha1"]),
        ("sha256", "pages", seal["pages-sha256"]),
        # Pages are checked against the strongest CodeDirectory only (as codesign and the kernel do).
        ("sha1", "pages", 0 if seal["pages-sha256"] else seal["pages-sha1"]),
    ]
    limit = sum(size / rates[(kind, what)] for kind, what, size in parts)
    app_size = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(app) for n in names)
    print(f"codesign verify: {app_size / 1e6:.1f} MB app, {seal['files']} files, ad-hoc seal made with hashlib "
          f"(bench/gen_signed_app.py); ipa {os.path.getsize(ipa) / 1e6:.1f} MB from `adhocbuild package`")
    print("hashed by the seal: " + ", ".join(f"{kind} {what} {size / 1e6:.1f} MB" for kind, what, size in parts if size))
    print(f"openssl speed -multi {cores} -evp: " + ", ".join(
        f"{kind} {'16 KiB' if what == 'files' else '4 KiB'} {rates[(kind, what)] / 1e6:.0f} MB/s" for kind, what, _ in parts)
        + f" -> hashing limit {limit:.3f} s")
    # Issue 30's goals: each verify against a peer that reads the same input, in turns (A B A B ...),
    # the ratio peer / verify taken pair by pair so a busy moment falls on both.
    unzip = shutil.which("unzip")
    if not unzip:
        sys.exit("bench: unzip is not installed (apt-get install unzip)")
    peers = [
        ("folder", app, "openssl dgst -sha256, 2 processes", openssl_peer_command(app, out), 1.0),
        ("ipa", ipa, "unzip -tq", [unzip, "-tq", ipa], 2.0),
    ]
    print(f"median of {runs} runs each, verify and its peer in turns; ratio = peer s / verify s, median of the pairs "
          f"(above 1: verify is faster; three decimals, as a goal of 1.00x is judged on them)")
    print(f"{'input':<7} {'median s':>9} {'min s':>7} {'CPU s':>7} {'peak MB':>8} {'limit':>6}  {'peer':<34} "
          f"{'median s':>9} {'CPU s':>7} {'peak MB':>8} {'ratio':>7} {'goal':>6}  verify says")
    for name, target, peer_name, peer, goal in peers:
        verdict = check_valid(adhocbuild, target)
        ours, theirs = [], []
        for _ in range(runs):
            ours.append(run_once([adhocbuild, "codesign", "verify", target]))
            theirs.append(run_once(peer))
        median = statistics.median(s for s, _, _ in ours)
        ratio = statistics.median(t[0] / o[0] for o, t in zip(ours, theirs))
        print(f"{name:<7} {median:>9.3f} {min(s for s, _, _ in ours):>7.3f} {statistics.median(c for _, c, _ in ours):>7.3f} "
              f"{max(p for _, _, p in ours) / 1e6:>8.1f} {100 * limit / median:>5.0f}%  {peer_name:<34} "
              f"{statistics.median(s for s, _, _ in theirs):>9.3f} {statistics.median(c for _, c, _ in theirs):>7.3f} "
              f"{max(p for _, _, p in theirs) / 1e6:>8.1f} "
              f"{ratio:>6.3f}x {goal:>5.2f}x  {verdict}")
    print(f"(CPU s: user+system, median; limit: the hashing limit as a share of the median; peak MB: the largest of "
          f"the runs, the goal is under 100 MB)")
    print("openssl: `openssl dgst -sha256` over every file of the app, in two processes at once each given half the "
          "bytes (xargs, one command line each); it lists, parses and compares nothing, and hashes the executable "
          "once with SHA-256, as verify hashes its pages (against the SHA-256 CodeDirectory). unzip -tq: inflates every entry "
          "of the ipa and checks its CRC, on one core")
    # What starting costs, before any work: the folder's peer starts its two processes side by side,
    # verify starts once, loading the libraries the binary links (not libcurl: it is loaded when a
    # request is sent).
    starts = [(run_once([adhocbuild, "--version"]), run_once(["openssl", "version"])) for _ in range(max(runs, 21))]
    print(f"starting (wall, with /usr/bin/time's own start): adhocbuild --version median "
          f"{statistics.median(a[0] for a, _ in starts) * 1e3:.1f} ms, openssl version median "
          f"{statistics.median(b[0] for _, b in starts) * 1e3:.1f} ms, in turns, {len(starts)} each")
    # What reading the app costs alone (GNU cat reads every byte, even towards /dev/null): on a VM
    # the kernel's copy can be a large share of the hashing limit itself.
    reading = [run_once(["sh", "-c", f"find '{app}' -type f -print0 | xargs -0 cat > /dev/null"]) for _ in range(runs)]
    print(f"reading the app once (find | xargs cat > /dev/null, one core): median {statistics.median(s for s, _, _ in reading):.3f} s, "
          f"CPU {statistics.median(c for _, c, _ in reading):.3f} s")
    load = os.getloadavg()[0]
    print(f"{runs} runs (BENCH_CODESIGN_RUNS), load average {load:.1f} on {cores} cores at the end; nothing on this "
          f"machine verifies iOS code signatures on Linux (codesign is macOS-only; rcodesign and ldid are not "
          f"installed), so the peers read the same input without verifying")


def make_identity(folder):
    """A throwaway RSA identity (p12, password file) and a development profile listing its
    certificate for com.example.bench, made with openssl as a developer's would come from Apple."""
    p12 = os.path.join(folder, "bench.p12")
    if os.path.exists(p12):
        return p12, os.path.join(folder, "password.txt"), os.path.join(folder, "bench.mobileprovision")
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "30",
            "-subj", "/CN=Apple Development: Bench (BENCH12345)/OU=BENCH12345/O=Bench/C=US")
    openssl("pkcs12", "-export", "-inkey", "key.pem", "-in", "cert.pem", "-out", "bench.p12", "-passout", "pass:bench")
    with open(os.path.join(folder, "password.txt"), "w") as f:
        f.write("bench\n")
    der = subprocess.run(["openssl", "x509", "-in", "cert.pem", "-outform", "DER"], cwd=folder, check=True,
                         capture_output=True).stdout
    import datetime
    import plistlib
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
    profile = {
        "AppIDName": "Bench", "CreationDate": now, "ExpirationDate": now + datetime.timedelta(days=30),
        "DeveloperCertificates": [der], "Name": "Bench Development", "Platform": ["iOS"],
        "ProvisionedDevices": ["00008030-00000000000000BE"], "TeamIdentifier": ["BENCH12345"], "TeamName": "Bench",
        "UUID": "0B0E0C0E-0000-4000-8000-00000000BE0C", "Version": 1,
        "Entitlements": {"application-identifier": "BENCH12345.*", "com.apple.developer.team-identifier": "BENCH12345",
                         "get-task-allow": True, "keychain-access-groups": ["BENCH12345.*"]},
    }
    with open(os.path.join(folder, "profile.plist"), "wb") as f:
        plistlib.dump(profile, f)
    openssl("cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-signer", "cert.pem", "-inkey", "key.pem",
            "-in", "profile.plist", "-out", "bench.mobileprovision")
    return p12, os.path.join(folder, "password.txt"), os.path.join(folder, "bench.mobileprovision")


def sign(bin_dir, runs):
    """`codesign sign` of the same app (folder in, folder out) against hashing plus copying."""
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    out = os.path.join(HERE, "out", "codesign")
    app, seal = generate(out)
    p12, password, profile = make_identity(out)
    cores = os.cpu_count() or 1
    rates = {(kind, block): openssl_rate(kind, block, cores) for kind in ("sha1", "sha256") for block in (16384, 4096)}
    # The new seal hashes every resource with SHA-1 (files) and SHA-256 (files2), and every page of
    # the executable once per CodeDirectory; the generated binary names no minimum OS, so it gets both.
    resources = seal["sealed-sha256"]
    pages = seal["pages-sha256"]
    parts = [("sha1", 16384, resources), ("sha256", 16384, resources), ("sha1", 4096, pages), ("sha256", 4096, pages)]
    hashing = sum(size / rates[(kind, block)] for kind, block, size in parts)
    signed = os.path.join(out, "Signed.app")
    copy = os.path.join(out, "Copy.app")
    command = [adhocbuild, "codesign", "sign", app, "--identity", p12, "--password-file", password, "--profile", profile,
               "-o", signed]
    # The copy and the signer run in turns, each after the previous output is removed and `sync`
    # has written back what is dirty, so both meet the same page cache and the same writeback.
    copying = []
    samples = []
    for _ in range(runs):
        for target, timed, into in ((copy, ["cp", "-a", app, copy], copying), (signed, command, samples)):
            subprocess.run(["rm", "-rf", target], check=True)
            subprocess.run(["sync"], check=True)
            into.append(run_once(timed))
    subprocess.run(["rm", "-rf", copy], check=True)
    copy_s = min(s for s, _, _ in copying)
    limit = hashing + copy_s
    verdict = check_valid(adhocbuild, signed)
    best = min(s for s, _, _ in samples)
    median = sorted(s for s, _, _ in samples)[len(samples) // 2]
    cpu = min(c for _, c, _ in samples)
    peak = max(p for _, _, p in samples)
    print()
    print(f"codesign sign: the same app, folder to folder, with an RSA identity and a profile made with openssl")
    print(f"hashed by the new seal: sha1+sha256 of {resources / 1e6:.1f} MB of resources and of {pages / 1e6:.1f} MB of code "
          f"pages -> hashing limit {hashing:.3f} s on {cores} cores; copying the app (cp -a, min of {runs}) {copy_s:.3f} s")
    print(f"{'input':<8} {'min s':>8} {'median s':>9} {'limit s':>8} {'ratio':>7} {'min CPU s':>10} {'peak MB':>8}  verify says")
    print(f"{'folder':<8} {best:>8.3f} {median:>9.3f} {limit:>8.3f} {100 * limit / best:>6.0f}% {cpu:>10.3f} {peak / 1e6:>8.1f}  {verdict}")
    print("(limit: hashing at the openssl speed rates of this run plus the copy; no peer runs here: rcodesign and "
          "zsign are not packaged for Debian, and nothing else signs iOS apps on Linux)")
    subprocess.run(["rm", "-rf", signed], check=True)
    release(adhocbuild, out, app, p12, password, profile, runs, hashing)


ENVIRONMENT = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>Info</key><dict>{}</dict></dict></plist>
"""


def release(adhocbuild, out, app, p12, password, profile, runs, hashing):
    """`release` of the same app for an environment, with and without re-signing: the difference is
    what signing adds to a release (packaging and verifying the ipa dominate both)."""
    environments = os.path.join(out, "environments")
    os.makedirs(environments, exist_ok=True)
    with open(os.path.join(environments, "Base.plist"), "w") as f:
        f.write(ENVIRONMENT.format("<key>CFBundleIdentifier</key><string>com.example.bench</string>"))
    with open(os.path.join(environments, "Bench.plist"), "w") as f:
        f.write(ENVIRONMENT.format("<key>CFBundleDisplayName</key><string>Bench β</string>"))
    dist = os.path.join(out, "dist")
    base = [adhocbuild, "release", "--env", "Bench", "--app", app, "--environments", environments, "--build-number", "7",
            "--base-url", "https://builds.example.com/", "--out", dist, "--ci", "none", "-q"]
    variants = [("signing", base + ["--sign-identity", p12, "--sign-password-file", password, "--sign-profile", profile]),
                ("none", base + ["--profile", profile, "--allow-broken-signature"])]
    samples = {name: [] for name, _ in variants}
    for _ in range(max(1, runs // 2)):
        for name, command in variants:  # in turns, each after `sync`, as for `codesign sign`
            subprocess.run(["rm", "-rf", dist], check=True)
            subprocess.run(["sync"], check=True)
            samples[name].append(run_once(command))
    rows = [(name, min(s for s, _, _ in samples[name]), max(p for _, _, p in samples[name])) for name, _ in variants]
    subprocess.run(["rm", "-rf", dist], check=True)
    print()
    print("release --env Bench of the same app (copy, environment, build number, package, verify, signature check, page):")
    print(f"{'signing':<8} {'min s':>8} {'peak MB':>8}")
    for name, best, peak in rows:
        print(f"{name:<8} {best:>8.3f} {peak / 1e6:>8.1f}")
    added = rows[0][1] - rows[1][1]
    print(f"re-signing adds {added:.3f} s to the release, against a hashing limit of {hashing:.3f} s for the new seal"
          + (f" ({100 * hashing / added:.0f}%)" if added > 0 else ""))
