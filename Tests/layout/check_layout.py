#!/usr/bin/env python3
"""Checks the source tree's two rules of layout (docs/development.md, "Layout"):

1. Arrows one way: a room of Sources/Backdrop names no type declared in a room above it, in the order Support, Geo,
   Imaging, Cache, Cluster, Photos, Rendering, HTTP (Settings and the files at the top may name any).
2. No test suite calls another suite's helpers: a test file names no `SomethingTests.` but the suites it declares or
   extends, and nothing declared at the top of a suite's file (`*Tests.swift`) is named in another file; what suites
   share lives in Tests/BackdropTests/Support and StandIns.

Exits 1 naming every arrow and call that breaks a rule, else 0. `--root DIR` checks another tree; `--self-test` first
checks a tree broken on purpose (an upward arrow, a call of another suite's helper, a helper beside a suite) and
fails unless each is found."""
import argparse
import pathlib
import re
import sys

ROOMS = ["Support", "Geo", "Imaging", "Cache", "Cluster", "Photos", "Rendering", "HTTP"]
DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|final|nonisolated|indirect|open)\s+)*"
    r"(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z]\w*)",
    re.M,
)


def code(text):
    """The Swift text without comments and string literals, whose words name nothing."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def upward_arrows(sources):
    room_of = {}
    for room in ROOMS:
        for path in sorted((sources / room).rglob("*.swift")):
            for name in DECLARATION.findall(path.read_text()):
                room_of.setdefault(name, room)
    found = []
    for level, room in enumerate(ROOMS):
        for path in sorted((sources / room).rglob("*.swift")):
            for name in sorted(set(re.findall(r"\b[A-Z]\w*\b", code(path.read_text())))):
                above = room_of.get(name)
                if above and ROOMS.index(above) > level:
                    found.append(f"{path.relative_to(sources)}: {room} names {name} of {above}")
    return found


def cross_suite_calls(tests):
    files = {path: code(path.read_text()) for path in sorted(tests.rglob("*.swift"))}
    helpers = {}
    for path, text in files.items():
        if path.name.endswith("Tests.swift"):
            for name in re.findall(r"^(?:(?:final\s+)?(?:struct|class|enum|actor|protocol)\s+|func\s+)(\w+)", text, re.M):
                if not name.endswith("Tests"):
                    helpers[name] = path
    found = []
    for path, text in files.items():
        own = set(re.findall(r"^(?:struct|final class|enum|extension)\s+(\w+Tests)\b", text, re.M))
        for line_number, line in enumerate(text.split("\n"), 1):
            for suite in sorted(set(re.findall(r"\b(\w+Tests)\.\w", line)) - own):
                found.append(f"{path.relative_to(tests)}:{line_number}: calls {suite}'s helper")
            for name in sorted(set(re.findall(r"\b\w+\b", line)) & helpers.keys()):
                if helpers[name] != path:
                    found.append(f"{path.relative_to(tests)}:{line_number}: names {name}, declared beside a suite in {helpers[name].name}")
    return found


def self_test():
    """The check finds each kind of break in a tree broken on purpose, and nothing in the same tree mended."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        files = {
            "Sources/Backdrop/Support/Metrics.swift": "struct Metrics { func count(_ format: OutputFormat) {} }\n",
            "Sources/Backdrop/Imaging/OutputFormat.swift": "enum OutputFormat { case png }  // Metrics\n",
            "Tests/BackdropTests/ATests.swift": "struct ATests { static let epoch = 1 }\nfunc helper() {}\n",
            "Tests/BackdropTests/BTests.swift": "struct BTests { let a = ATests.epoch; let b = helper() }\n",
            "Tests/BackdropTests/CTests.swift": "extension ATests { static let c = ATests.epoch }\n",
        }
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        broken = upward_arrows(root / "Sources/Backdrop") + cross_suite_calls(root / "Tests/BackdropTests")
        expected = [
            "Support/Metrics.swift: Support names OutputFormat of Imaging",
            "BTests.swift:1: calls ATests's helper",
            "BTests.swift:1: names helper, declared beside a suite in ATests.swift",
        ]
        if broken != expected:
            print("self-test: the broken tree gave", broken, "not", expected)
            return False
        (root / "Sources/Backdrop/Support/Metrics.swift").write_text("struct Metrics { func count(_ format: String) {} }\n")
        (root / "Tests/BackdropTests/BTests.swift").write_text("struct BTests { let a = 1 }\n")
        mended = upward_arrows(root / "Sources/Backdrop") + cross_suite_calls(root / "Tests/BackdropTests")
        if mended:
            print("self-test: the mended tree gave", mended)
            return False
    print("self-test: an upward arrow, a call of another suite's helper and a helper beside a suite each found")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    if arguments.self_test and not self_test():
        return 1
    root = arguments.root
    arrows = upward_arrows(root / "Sources/Backdrop")
    calls = cross_suite_calls(root / "Tests/BackdropTests")
    for line in arrows + calls:
        print(line)
    print(f"layout: {len(arrows)} upward arrows, {len(calls)} calls of another suite's helpers")
    return 1 if arrows or calls else 0


if __name__ == "__main__":
    sys.exit(main())
