"""Stamps of generated data (issue 61): what a generated file was made from, so that `make test` checks it without
making it again.

A stamp (Tools/stamps/NAME.json) holds the SHA-256 of each input (the tool's own source, a data file, or an installed
Python distribution's RECORD, which lists the SHA-256 of every file pip installed from it: its own files'
lines) and of the output the tool
wrote from them. `--check` passes at once when the inputs and the output are what the stamp says. When the output is
not, or an input changed, the tool makes the file again and compares: a stale stamp fails like stale data, and the
tool run without `--check` writes both the file and its stamp. `--check --full` always makes it again.
"""
import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path

STAMPS = Path(__file__).resolve().parent / "stamps"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


ROOT = Path(__file__).resolve().parent.parent


def inputs(files=(), distributions=()):
    """The inputs' digests, by name: each file's bytes (named from the repository's root when inside it), each
    distribution's RECORD (named with its version)."""
    found = {}
    for path in map(Path, files):
        resolved = path.resolve()
        found[str(resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else path)] = sha256(path.read_bytes())
    for name in distributions:
        distribution = metadata.distribution(name)
        found[f"{name}=={distribution.version}"] = sha256("\n".join(installed_files(distribution)).encode())
    return found


def installed_files(distribution):
    """The RECORD lines of the files a distribution installed in its own folders (path, SHA-256, size), sorted: not
    its scripts (their first line names the interpreter's path), compiled bytecode or pip's own notes."""
    lines = (distribution.read_text("RECORD") or "").splitlines()
    return sorted(
        line for line in lines
        if line.split(",")[1:2] != [""] and not line.startswith("../") and "__pycache__" not in line and ".dist-info/" not in line
    )


def check(name, output: Path, made_from: dict, make, full=False):
    """Exits with an error unless `output` is what `make()` gives from inputs `made_from`, as the stamp says or, when
    it cannot tell (`full`, or the stamp does not match), by making it again."""
    path = STAMPS / f"{name}.json"
    stamp = json.loads(path.read_text()) if path.exists() else {}
    current = sha256(output.read_bytes())
    if not full and stamp.get("inputs") == made_from and stamp.get("output") == current:
        print(f"{output.name}: its inputs and itself are as {path.name} records (made again with --check --full)")
        return
    if output.read_text() != make():
        sys.exit(f"{output} is not what {name}'s tool writes from its inputs: run the tool again")
    if stamp.get("inputs") != made_from or stamp.get("output") != current:
        sys.exit(f"{output.name} is right but {path} does not record its inputs: run the tool again to write the stamp")
    print(f"{output.name}: made again from its inputs, and the same")


def write(name, output: Path, made_from: dict, text: str):
    """Writes `text` to `output` and the stamp of it made from `made_from`."""
    output.write_text(text)
    STAMPS.mkdir(exist_ok=True)
    stamp = {"inputs": made_from, "output": sha256(text.encode())}
    (STAMPS / f"{name}.json").write_text(json.dumps(stamp, indent=2, sort_keys=True) + "\n")
