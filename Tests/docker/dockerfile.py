"""Reads a Dockerfile the way both container checks need it: instructions with continuation lines joined and comments
dropped, split into stages, with each instruction's arguments in Docker's two forms (exec JSON or shell words); and
the libraries a binary links, as the build stage reads them."""
import json
import re
import shlex
import subprocess


def instructions(text):
    """Dockerfile instructions with continuation lines joined, comments dropped."""
    joined, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        current += " " + stripped.rstrip("\\").strip()
        if not stripped.endswith("\\"):
            joined.append(current.strip())
            current = ""
    return joined


def stages(lines):
    """The stages as lists of instructions, each starting with its FROM line."""
    starts = [i for i, line in enumerate(lines) if line.upper().startswith("FROM ")]
    return [lines[start:end] for start, end in zip(starts, starts[1:] + [len(lines)])]


def split(line):
    """(KEYWORD, rest of the line)."""
    keyword, _, rest = line.partition(" ")
    return keyword.upper(), rest.strip()


def exec_form(rest):
    """The argument list of RUN/CMD/ENTRYPOINT/HEALTHCHECK CMD: a JSON array as written, or the shell form run by
    `/bin/sh -c` as Docker does."""
    if rest.startswith("["):
        return json.loads(rest)
    return ["/bin/sh", "-c", rest]


def env_pairs(rest):
    """ENV's `K=V K2=V2` form, or the legacy `K V` form."""
    words = shlex.split(rest)
    if words and "=" not in words[0]:
        return {words[0]: rest.split(None, 1)[1] if len(words) > 1 else ""}
    return dict(word.split("=", 1) for word in words)


def flags(rest):
    """(`--flag=value` options, remaining words) of COPY/HEALTHCHECK-style arguments."""
    options, words = {}, shlex.split(rest)
    while words and words[0].startswith("--"):
        name, _, value = words.pop(0)[2:].partition("=")
        options[name] = value
    return options, words


def healthcheck(rest):
    """(options, command) of `HEALTHCHECK [OPTIONS] CMD ...`; command is None for `HEALTHCHECK NONE`."""
    match = re.match(r"((?:--\S+\s+)*)(CMD|NONE)\b\s*(.*)", rest, re.S)
    if not match:
        raise ValueError(f"cannot read HEALTHCHECK {rest}")
    options, _ = flags(match.group(1))
    return options, (exec_form(match.group(3)) if match.group(2) == "CMD" else None)


def linked_libraries(binary):
    """(`ldd`'s text, the paths of the libraries `binary` links, the Swift runtime's among them: those under a
    toolchain's lib/swift/linux/, which the build stage gathers into /build/swift with the same test)."""
    text = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    paths = re.findall(r"=>\s+(\S+)\s+\(", text) + re.findall(r"^\s+(/\S+)\s+\(", text, re.M)
    return text, paths, [path for path in paths if "/lib/swift/linux/" in path]
