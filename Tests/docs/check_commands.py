#!/usr/bin/env python3
"""Runs the commands the README and the docs/ pages give, as written, against the release binary, and checks that
every file and Makefile target they name exists.

    Tests/docs/check_commands.py .build/release/backdrop

- Each `curl` line of a page's `sh` blocks is run against a server on loopback (stock photos only: nothing here
  reaches Flickr or Commons), its `http://127.0.0.1:8080` pointed at that server's port: it must exit 0 with a 200,
  and a body saved as `NAME.png` must be a PNG.
- Each `make TARGET` a page names (in a block or in running text) is a target of the Makefile, dry-run (`make -n`).
- A `backdrop` synopsis offers only options the command's `--help` lists.
- `docker` and `kubectl` lines need an engine and a cluster this machine has not: the files they name must exist
  (the container and kubernetes stages run the image's runtime stage and check the manifests).
- Every repository path a page names in backticks exists.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import BackdropServer  # noqa: E402
from checks import check, finish  # noqa: E402

PAGES = ["README.md"] + sorted(os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
FOLDERS = ("Tests/", "Tools/", "Benchmarks/", "deploy/", "docs/", "Public/", "Sources/", "BackdropKit/", "StockPhotos/")


def shell_commands(text):
    """The commands of a page's `sh` blocks: continuation lines joined, comments and blank lines dropped."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        current = ""
        for line in block.splitlines():
            if line.strip().startswith("#") or not line.strip():
                continue
            current += line.rstrip("\\").rstrip() + " "
            if not line.rstrip().endswith("\\"):
                commands.append(current.strip())
                current = ""
    return commands


def without_comment(command):
    """The command without a trailing `# ...` comment (outside quotes)."""
    return " ".join(shlex.split(command, comments=True))


def make_targets(text):
    """The targets named in running text (`make bench`); the blocks' own are checked as commands."""
    return sorted(set(re.findall(r"`make ([a-z][a-z-]*)`", text)))


def named_paths(text):
    paths = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        word = span.split()[0] if span.split() else ""
        if word.startswith(FOLDERS):
            paths.add(word.rstrip(".,;:)"))
    return sorted(paths)


def run_curl(command, server, folder):
    words = shlex.split(command, comments=True)
    words = [word.replace("http://127.0.0.1:8080", server.base) for word in words]
    words += ["-sS", "-w", "\n%{http_code}\n", "--max-time", "30"]
    done = subprocess.run(words, cwd=folder, capture_output=True, timeout=60)
    status = done.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""]
    saved = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "-o" and words[i + 1] != "/dev/null"]
    pngs = [name for name in saved if name.endswith(".png")]
    is_png = all(open(os.path.join(folder, name), "rb").read(8) == b"\x89PNG\r\n\x1a\n" for name in pngs)
    return done.returncode == 0 and status[0] == "200" and is_png, f"exit {done.returncode}, status {status[0]}, {pngs or 'no file'}"


def main():
    binary = os.path.abspath(sys.argv[1])
    texts = {page: open(os.path.join(ROOT, page)).read() for page in PAGES}
    print(f"docs: the commands of {', '.join(PAGES)}")
    with BackdropServer(binary, flickr=False) as server, tempfile.TemporaryDirectory() as folder:
        for page, text in texts.items():
            for command in shell_commands(text):
                name = without_comment(command)
                words = name.split()
                place = ROOT
                if words[0] == "cd" and words[2] == "&&":  # `cd deploy && ...`
                    place, words = os.path.join(ROOT, words[1]), words[3:]
                while re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # `OTEL_EXPORTER_OTLP_ENDPOINT=... make run`
                    words = words[1:]
                program = words[0]
                if program == "curl":
                    check(f"{page}: {name[:110]}", *run_curl(command, server, folder))
                elif program == "backdrop":
                    subcommand = name.split()[1]
                    offered = subprocess.run([binary, subcommand, "--help"], capture_output=True, text=True, timeout=30).stdout
                    options = re.findall(r"--[a-z][a-z-]*", name)
                    missing = [option for option in options if option not in offered]
                    check(f"{page}: `{name[:80]}` offers only options `backdrop {subcommand} --help` lists", not missing, str(missing))
                elif program == "docker" and words[1] == "compose":
                    compose = os.path.join(place, "compose.yaml")
                    profiles = re.findall(r"--profile (\S+)", name)
                    text_of = open(compose).read() if os.path.exists(compose) else ""
                    check(f"{page}: `{name[:80]}` names a compose file and profiles that exist",
                          bool(text_of) and all(re.search(rf"profiles: \[[^\]]*\b{p}\b", text_of) for p in profiles), str(profiles))
                elif program == "docker":
                    check(f"{page}: `{name[:80]}`: the Dockerfile the container stage builds and runs exists",
                          os.path.exists(os.path.join(ROOT, "Dockerfile")))
                elif program == "make":
                    target = words[1] if len(words) > 1 else "all"
                    dry = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
                    check(f"{page}: `{name[:80]}` is a target", dry.returncode == 0, dry.stderr.strip()[-200:])
                elif program == "kubectl":
                    folders = re.findall(r"-k (\S+)", name)
                    check(f"{page}: `{name[:80]}` names kustomizations that exist",
                          all(os.path.exists(os.path.join(ROOT, f, "kustomization.yaml")) for f in folders), str(folders))
                else:
                    check(f"{page}: `{name[:80]}` is a command this check knows", False)
            for target in make_targets(text):
                dry = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
                check(f"{page}: `make {target}` is a target", dry.returncode == 0, dry.stderr.strip()[-200:])
            missing = [path for path in named_paths(text) if not os.path.exists(os.path.join(ROOT, path))]
            check(f"{page}: every path it names exists ({len(named_paths(text))})", not missing, str(missing))
    finish("docs")


if __name__ == "__main__":
    main()
