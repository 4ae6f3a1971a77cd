"""The test drivers' one way to report: an `ok`/`FAIL` line per check, and the closing `NAME: N passed, N failed` line.

    from checks import check, finish
    check("what is promised", ok, "what was seen")
    finish("cluster")   # prints the counts and exits non-zero on any failure
"""
import sys

RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"  {'ok  ' if ok else 'FAIL'} {name}" + (f" ({detail})" if detail else ""), flush=True)
    return ok


def run_part(part, *args):
    """Runs one part of a driver; any exception it raises is a named failure, and the next parts still run."""
    try:
        part(*args)
    except Exception as error:
        check(f"{part.__name__} ran to its end", False, f"{type(error).__name__}: {error}")


def finish(name):
    print(f"{name}: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] else 0)
