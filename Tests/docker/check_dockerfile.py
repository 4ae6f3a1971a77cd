#!/usr/bin/env python3
"""Checks the Dockerfile without a Docker engine: its runtime stage must install exactly what the release binary needs.

usage: check_dockerfile.py PATH/TO/release/backdrop [Dockerfile]
- every shared library `ldd` shows is mapped to its Debian package (`dpkg -S`); each must be installed by the runtime
  stage's apt-get line (libc6, which every Debian image is made of, excepted) and nothing else needed may be missing;
- Swift's runtime libraries (a toolchain's lib/swift/linux/, linked dynamically) are gathered by the build stage from
  the binary's own `ldd`, copied into the runtime stage's /usr/lib/swift/linux and registered with ld.so's cache;
- the runtime stage installs no -dev packages and no compilers, and does install ca-certificates (HTTPS to Flickr);
- every file or folder the Dockerfile copies from the build context exists;
- the image runs as a non-root user, exposes a port, declares the cache volume and a HEALTHCHECK.
"""
import os
import re
import subprocess
import sys

from dockerfile import instructions, linked_libraries

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    results["passed" if condition else "failed"] += 1
    print(f"  {'ok  ' if condition else 'FAIL'} {name}" + (f" {detail}" if detail and not condition else ""))


def package_of(path):
    for candidate in dict.fromkeys([path, os.path.realpath(path), path.replace("/lib/", "/usr/lib/", 1), os.path.realpath(path).replace("/usr/lib/", "/lib/", 1)]):
        out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout.split(":")[0].strip()
    return None


def main():
    binary = sys.argv[1]
    dockerfile = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "Dockerfile")
    print(f"docker: checking {os.path.relpath(dockerfile, ROOT)} against {binary}")
    lines = instructions(open(dockerfile).read())
    stages = [i for i, line in enumerate(lines) if line.upper().startswith("FROM ")]
    runtime = lines[stages[-1]:]
    check("multi-stage: a build stage and a runtime stage", len(stages) >= 2)
    check("runtime stage is slim Debian", re.match(r"FROM debian:[a-z]+-slim", runtime[0]) is not None, runtime[0])

    installed = set()
    for line in runtime:
        for command in re.findall(r"apt-get install ([^&;]*)", line):
            installed |= {word for word in command.split() if not word.startswith("-")}
    ldd, libraries, swift = linked_libraries(binary)
    check("the binary finds every library it links", "not found" not in ldd, ldd)
    libraries = [library for library in libraries if library not in swift]
    build_text = "\n".join(lines[stages[-2]:stages[-1]])
    gathered = re.search(r"ldd /build/backdrop \| awk '\$3 ~ \"/lib/swift/linux/\".*cp -t /build/swift", build_text)
    check(f"the build stage gathers the Swift runtime libraries the binary links ({len(swift)})", bool(swift) and gathered,
          f"{len(swift)} linked; the build stage: {build_text[-300:]}")
    check("the runtime stage copies them into /usr/lib/swift/linux",
          any(re.fullmatch(r"COPY --from=build /build/swift /usr/lib/swift/linux/?", line) for line in runtime))
    check("and registers that folder with ld.so's cache",
          any(re.search(r"echo /usr/lib/swift/linux > /etc/ld\.so\.conf\.d/\S+\.conf && ldconfig", line) for line in runtime))
    needed = {}
    for library in libraries:
        needed.setdefault(package_of(library) or f"(unknown: {library})", []).append(os.path.basename(library))
    print("  the binary links: " + ", ".join(f"{package} ({', '.join(libs)})" for package, libs in sorted(needed.items())))
    unknown = [package for package in needed if package.startswith("(unknown")]
    check("every linked library belongs to a Debian package", not unknown, str(unknown))
    missing = sorted(package for package in needed if package != "libc6" and package not in installed)
    check("the runtime stage installs every package the binary needs", not missing, f"missing: {missing}")
    unneeded = sorted(installed - set(needed) - {"ca-certificates"})
    check("and nothing it does not need", not unneeded, f"extra: {unneeded}")
    dev = sorted(p for p in installed if p.endswith("-dev") or p in {"gcc", "g++", "clang", "cpp", "make", "build-essential", "swiftlang"} or p.startswith("gcc-"))
    check("no -dev packages or compilers at run time", not dev, str(dev))
    check("ca-certificates for HTTPS to Flickr", "ca-certificates" in installed)

    sources = []
    for line in lines:
        if line.upper().startswith("COPY ") and "--from=" not in line:
            words = [w for w in line.split()[1:] if not w.startswith("--")]
            sources += words[:-1]
    absent = [s for s in sources if not os.path.exists(os.path.join(ROOT, s))]
    check(f"every file the Dockerfile copies exists ({len(sources)})", not absent, str(absent))

    text = "\n".join(runtime)
    user = re.search(r"^USER (\S+)", text, re.M)
    check("runs as a non-root user", user is not None and user.group(1) not in {"root", "0"})
    check("exposes the port", re.search(r"^EXPOSE 8080", text, re.M) is not None)
    check("declares the cache folder as a volume", "VOLUME" in text and "/app/cache" in text)
    check("has a HEALTHCHECK on /health", re.search(r"^HEALTHCHECK .*/health", text, re.M) is not None)
    check("configures through the environment", "BACKDROP_HOST=0.0.0.0" in text)
    print(f"docker: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
