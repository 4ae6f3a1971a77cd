#!/usr/bin/env python3
"""BackdropKit's Swift tests against live Backdrops on loopback, and an app package that depends on it.

usage: run.py PATH/TO/backdrop OUTPUT_DIR
- Public/openapi.yaml is handed to the tests as JSON (the models are checked against its schemas and examples);
- one Backdrop pointed at the stand-in Flickr, one whose render queue holds a single job (to be overloaded);
- `swift test` in BackdropKit/ with their URLs; a run that skips any test fails (the tests skip without them);
- a throwaway app that adds BackdropKit by a git URL, as an app would, resolves and builds with BackdropKit alone.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KIT = os.path.join(ROOT, "BackdropKit")
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402

APP_MANIFEST = """// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "WeatherApp",
    platforms: [.macOS(.v12), .iOS(.v15)],
    dependencies: [.package(url: "%s", from: "1.0.0")],
    targets: [.executableTarget(name: "WeatherApp", dependencies: [.product(name: "BackdropKit", package: "BackdropKit")])]
)
"""
APP_MAIN = """import BackdropKit
import Foundation

let client = BackdropClient(baseURL: URL(fileURLWithPath: "/"))
var scene = BackdropScene()
scene.update(.failure(.timedOut(seconds: client.timeout)), at: Date())
print(scene.blurredOpacity(scrollOffset: 40), scene.content(at: Date()))
"""


def run_tests(output):
    """`swift test` in BackdropKit/ against the live services; (passed, failed, lines worth showing)."""
    with tempfile.TemporaryDirectory(prefix="backdropkit-") as work:
        openapi = os.path.join(work, "openapi.json")
        with open(os.path.join(ROOT, "Public", "openapi.yaml")) as f, open(openapi, "w") as out:
            json.dump(yaml.safe_load(f), out)
        binary = sys.argv[1]
        with BackdropServer(binary, log=os.path.join(output, "backdropkit-server.log")) as server, \
                BackdropServer(binary, flickr=False, settings={"render": {"maxPending": 1, "workers": 1, "avifSpeed": 0}},
                               log=os.path.join(output, "backdropkit-busy.log")) as busy:
            env = dict(os.environ, BACKDROPKIT_SERVER=server.base, BACKDROPKIT_BUSY_SERVER=busy.base, BACKDROPKIT_OPENAPI_JSON=openapi,
                       BACKDROPKIT_OUTPUT=work)
            run = subprocess.run(["swift", "test", "--package-path", KIT], env=env, capture_output=True, text=True, timeout=60)
            previews = []  # (stated, decoded) for each preview the tests left
            for path in sorted(glob.glob(os.path.join(work, "preview-*.webp"))):
                with Image.open(path) as image:
                    image.load()
                    previews.append((os.path.basename(path)[:-5].split("-")[-1], f"{image.width}x{image.height}"))
    text = run.stdout + run.stderr
    with open(os.path.join(output, "backdropkit-tests.txt"), "w") as f:
        f.write(text)
    summary = re.search(r"Test run with (\d+) tests? in \d+ suites? (passed|failed)", text)
    skipped = [line for line in text.splitlines() if "skipped" in line]
    return run.returncode, summary, skipped, text, previews


def app_resolves_backdropkit_alone():
    """A throwaway app adding BackdropKit from a git repository of its own (as `git subtree split` would publish it):
    (its Package.resolved pins, what it printed)."""
    with tempfile.TemporaryDirectory(prefix="backdropkit-app-") as work:
        repo = os.path.join(work, "BackdropKit.git")
        shutil.copytree(KIT, repo, ignore=shutil.ignore_patterns(".build", ".swiftpm", "Package.resolved"))
        git = ["git", "-C", repo, "-c", "user.name=test", "-c", "user.email=test@localhost"]
        for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "BackdropKit"], ["tag", "1.0.0"]):
            subprocess.run(git + command, check=True, capture_output=True)
        app = os.path.join(work, "WeatherApp")
        os.makedirs(os.path.join(app, "Sources", "WeatherApp"))
        with open(os.path.join(app, "Package.swift"), "w") as f:
            f.write(APP_MANIFEST % ("file://" + repo))
        with open(os.path.join(app, "Sources", "WeatherApp", "main.swift"), "w") as f:
            f.write(APP_MAIN)
        build = subprocess.run(["swift", "build", "--package-path", app], capture_output=True, text=True, timeout=60)
        if build.returncode != 0:
            return None, build.stdout[-2000:] + build.stderr[-2000:]
        with open(os.path.join(app, "Package.resolved")) as f:
            pins = [pin["identity"] for pin in json.load(f)["pins"]]
        checkouts = sorted(os.listdir(os.path.join(app, ".build", "checkouts")))
        ran = subprocess.run([os.path.join(app, ".build", "debug", "WeatherApp")], capture_output=True, text=True, timeout=60)
        return (pins, checkouts), ran.stdout.strip()


def main():
    output = sys.argv[2]
    os.makedirs(output, exist_ok=True)
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        passed, failed = passed + bool(ok), failed + (not ok)
        print(f"  {'ok  ' if ok else 'FAIL'} {name}" + (f"\n{detail}" if detail and not ok else ""))

    print("backdropkit: the Swift client against live Backdrops")
    code, summary, skipped, text, previews = run_tests(output)
    tail = "\n".join(line for line in text.splitlines() if "✘" in line or "error" in line.lower())[-3000:]
    check(f"swift test in BackdropKit/: {summary.group(0) if summary else 'no summary'}",
          code == 0 and summary and summary.group(2) == "passed", tail or text[-3000:])
    check("no test skipped (each had the services it needs)", not skipped, "\n".join(skipped[:10]))
    check(f"the previews the client decoded from their data URIs decode in Pillow to their stated sizes ({[p[0] for p in previews]})",
          len(previews) == 3 and all(stated == decoded for stated, decoded in previews), str(previews))
    resolved, printed = app_resolves_backdropkit_alone()
    check("an app that adds BackdropKit by its git URL builds, fetching BackdropKit alone",
          resolved == (["backdropkit"], ["BackdropKit"]) and "0.5" in printed, f"{resolved} {printed}")
    print(f"backdropkit: {passed} passed, {failed} failed (swift test output in {output}/backdropkit-tests.txt)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
