#!/usr/bin/env python3
"""Public/openapi.yaml checked against a live Backdrop (pointed at the stand-in Flickr) with schemathesis.

usage: test_openapi.py PATH/TO/backdrop OUTPUT_DIR [MAX_EXAMPLES]
Every operation gets a bounded number of generated requests, valid and invalid; the run must find no server errors,
no response that breaks its schema, no undocumented status code, content type or header. Also checks that the
document is served at /openapi.yaml and names every route the service answers, and that every example in it keeps to
its schema (BackdropKit's tests decode the same examples).
"""
import os
import subprocess
import sys
import urllib.request

import jsonschema
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from backdrop_server import BackdropServer  # noqa: E402

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance"


def example_errors(document):
    """Every response example that breaks its schema, as (where, message); and how many examples there are."""
    errors, count = [], 0
    responses = [(f"{path} {method} {status}", response)
                 for path, operations in document["paths"].items() for method, operation in operations.items()
                 for status, response in operation.get("responses", {}).items()]
    responses += [(f"components {name}", response) for name, response in document["components"]["responses"].items()]
    for where, response in responses:
        for media, content in response.get("content", {}).items():
            schema = dict(content["schema"], components=document["components"])
            for name, example in content.get("examples", {}).items():
                count += 1
                for error in jsonschema.Draft202012Validator(schema).iter_errors(example["value"]):
                    errors.append((f"{where} {media} example {name}", error.message[:200]))
    return errors, count


def main():
    binary, output = sys.argv[1], sys.argv[2]
    examples = sys.argv[3] if len(sys.argv) > 3 else "25"
    os.makedirs(output, exist_ok=True)
    passed = failed = 0
    print("openapi: Public/openapi.yaml against a live Backdrop")
    with BackdropServer(binary, log=os.path.join(output, "backdrop-openapi.log")) as server:
        with urllib.request.urlopen(server.base + "/openapi.yaml") as response:
            served = response.read().decode()
            content_type = response.headers.get("Content-Type", "")
        routes = ["/background:", "/background.json:", "/health:", "/metrics:", "/openapi.yaml:", "\n  /:"]
        if content_type.startswith("application/yaml") and all(route in served for route in routes):
            passed += 1
            print("  ok   served at /openapi.yaml and names every route")
        else:
            failed += 1
            print(f"  FAIL /openapi.yaml ({content_type})")
        errors, count = example_errors(yaml.safe_load(served))
        if count >= 5 and not errors:
            passed += 1
            print(f"  ok   its {count} examples keep to their schemas")
        else:
            failed += 1
            print(f"  FAIL examples ({count}): {errors[:5]}")
        schemathesis = os.path.join(os.path.dirname(sys.executable), "schemathesis")
        run = subprocess.run([schemathesis, "run", server.base + "/openapi.yaml", "--checks", CHECKS, "--max-examples", examples,
                              "--seed", "20261121", "--request-timeout", "60", "--workers", "2", "--generation-deterministic"],
                             capture_output=True, text=True, timeout=60, env=dict(os.environ, NO_COLOR="1"))
        with open(os.path.join(output, "schemathesis.txt"), "w") as f:
            f.write(run.stdout + run.stderr)
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-25:])
        if run.returncode == 0:
            passed += 1
            print(f"  ok   schemathesis ({examples} examples per operation): no server errors, schema or status violations")
        else:
            failed += 1
            print(f"  FAIL schemathesis exit {run.returncode}\n{tail}")
    print(f"openapi: {passed} passed, {failed} failed (report in {output}/schemathesis.txt)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
