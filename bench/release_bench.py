"""`release` from an exported ipa and from the .app, against `package` alone (bench.py --only release; issue 32).

The app is codesign_bench's (bench/gen_signed_app.py: ~200 MB, a 60 MB executable signed ad hoc,
thousands of small resources); its ipa is made once by `adhocbuild package`. In turns, each after
`sync` with the previous output removed: `package` of the .app; `release` of the .app; `release` of
the .ipa. Both releases apply an environment (an Info.plist key and environment.plist), set the
build number, re-sign every bundle with a throwaway identity and profile, package, verify and write
the page. The goals: the ipa's release at most half of `package`, the .app's at most 1.3x.
"""
import os
import statistics
import subprocess

import codesign_bench

HERE = os.path.dirname(os.path.abspath(__file__))


def release(bin_dir, runs):
    adhocbuild = os.path.join(bin_dir, "adhocbuild")
    out = os.path.join(HERE, "out", "codesign")
    app, _ = codesign_bench.generate(out)
    p12, password, profile = codesign_bench.make_identity(out)
    ipa = os.path.join(out, "Bench.ipa")
    if not os.path.exists(ipa):
        subprocess.run([adhocbuild, "package", app, "-o", ipa, "-q"], check=True)
    environments = os.path.join(out, "environments")
    os.makedirs(environments, exist_ok=True)
    with open(os.path.join(environments, "Bench.plist"), "w") as f:
        f.write(codesign_bench.ENVIRONMENT.format("<key>CFBundleDisplayName</key><string>Bench β</string>"))
    dist = os.path.join(out, "dist-release")
    packaged = os.path.join(out, "Packaged.ipa")

    def releasing(source):
        return [adhocbuild, "release", "--env", "Bench", "--app", source, "--environments", environments, "--build-number", "7",
                "--base-url", "https://builds.example.com/", "--out", dist, "--ci", "none", "-q",
                "--sign-identity", p12, "--sign-password-file", password, "--sign-profile", profile]

    commands = [("package .app", [adhocbuild, "package", app, "-o", packaged, "-q"]),
                ("release .app", releasing(app)),
                ("release .ipa", releasing(ipa))]
    samples = {name: [] for name, _ in commands}
    for _ in range(runs):
        for name, command in commands:
            subprocess.run(["rm", "-rf", dist, packaged], check=True)
            subprocess.run(["sync"], check=True)
            samples[name].append(codesign_bench.run_once(command))
    subprocess.run(["rm", "-rf", dist, packaged], check=True)
    package_s = statistics.median(s for s, _, _ in samples["package .app"])
    print(f"release (environment, build number, re-sign, package, verify, page) of a {os.path.getsize(ipa) / 1e6:.0f} MB ipa "
          f"and of its .app, against package of the .app; median of {runs} runs in turns")
    print(f"{'command':<14} {'median s':>9} {'min s':>7} {'CPU s':>7} {'peak MB':>8} {'x package':>10} {'goal':>6}")
    goals = {"package .app": None, "release .app": 1.3, "release .ipa": 0.5}
    for name, _ in commands:
        runs_of = samples[name]
        median = statistics.median(s for s, _, _ in runs_of)
        goal = goals[name]
        print(f"{name:<14} {median:>9.3f} {min(s for s, _, _ in runs_of):>7.3f} {statistics.median(c for _, c, _ in runs_of):>7.3f} "
              f"{max(p for _, _, p in runs_of) / 1e6:>8.1f} {median / package_s:>9.2f}x {'' if goal is None else f'{goal:.1f}x':>6}")
    print("(x package: the command's median over package's; at or under the goal is met)")
