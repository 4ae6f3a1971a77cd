#!/usr/bin/env python3
"""Traces as a collector receives them: a stand-in OTLP/HTTP receiver on loopback (POST /v1/traces, the protobuf
decoded by the opentelemetry-proto package) and a live Backdrop exporting to it, through the stand-in Flickr.

usage: check_traces.py PATH/TO/backdrop OUTPUT_DIR

- A cold request makes one trace: the server span and its children (photo choice, cluster claim, Flickr search and
  download, prepare with decode and crop, encode, disk write), each under the right parent; a cache hit, a trace of
  the server span alone; an incoming W3C traceparent is continued.
- Nothing secret or personal anywhere in a span (names, attributes, events, resource): not the Flickr key, not the
  database password, not the request's coordinates.
- JSON log lines carry the trace_id and span_id of the request they were written for.
- A dead or hanging collector changes no answer and adds no wait; shutdown flushes the spans still queued.
- Sampling as OTEL_TRACES_SAMPLER says: at the default (parent-based, a ratio of new traces) about that share of
  requests is traced, each trace whole (no child span starts a trace of its own), a caller's sampled flag is followed
  either way; traceidratio decides by the caller's trace ID. A caller's traceparent counts only from a trusted proxy
  (the callers above stand for one); from anyone else, or invalid, it forces nothing; percent-encoded names leak nothing.
"""
import json
import os
import socket
import statistics
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from backdrop_server import BackdropServer, free_port  # noqa: E402
from checks import check, finish, run_part  # noqa: E402
import router_flood  # noqa: E402

KEY = "integration-test-key"  # what backdrop_server gives the stand-in Flickr's replica
PASSWORD = "TRACE-SECRET-PW-9431"
LAT, LON = "48.8566", "2.3522"
KINDS = {1: "internal", 2: "server", 3: "client"}


def value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    return getattr(v, kind) if kind else None


class Collector:
    """OTLP/HTTP traces receiver; `mode` is "ok" or "hang" (reads the request, never answers)."""

    def __init__(self, mode="ok"):
        self.spans, self.resources, self.requests = [], [], 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with collector.lock:
                    collector.requests += 1
                if mode == "hang":
                    collector.release.wait(60)
                    return
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                with collector.lock:
                    for resource_spans in request.resource_spans:
                        collector.resources.append({a.key: value(a.value) for a in resource_spans.resource.attributes})
                        for scope in resource_spans.scope_spans:
                            for span in scope.spans:
                                collector.spans.append({
                                    "trace": span.trace_id.hex(), "id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                                    "name": span.name, "kind": KINDS.get(span.kind, str(span.kind)),
                                    "attributes": {a.key: value(a.value) for a in span.attributes},
                                    "events": [(e.name, {a.key: value(a.value) for a in e.attributes}) for e in span.events],
                                    "status": span.status.code,
                                })
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def snapshot(self):
        with self.lock:
            return list(self.spans)

    def wait_for(self, predicate, seconds=20):
        """The spans once `predicate(spans)` holds, polling, bounded."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            spans = self.snapshot()
            if predicate(spans):
                return spans
            time.sleep(0.05)  # the exporter sends every 100 ms here; bounded
        return self.snapshot()


def get(url, headers=None):
    started = time.monotonic()
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as answer:
        answer.read()
        return answer.status, time.monotonic() - started


def server_span(spans, trace=None, path="/background"):
    return [s for s in spans if s["kind"] == "server" and s["attributes"].get("http.route") == path and (trace is None or s["trace"] == trace)]


def environment(endpoint, **extra):
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_TRACES_SAMPLER": "always_on", "OTEL_BSP_SCHEDULE_DELAY": "100", **extra}


def traces(binary, output):
    collector = Collector()
    log = os.path.join(output, "backdrop-traces.log")
    settings = {"server": {"logFormat": "json", "trustedProxies": ["127.0.0.1"]},  # this test's client stands for a trusted router
                "cluster": {"postgresURL": f"postgres://backdrop:{PASSWORD}@127.0.0.1:{free_port()}/backdrop", "timeoutSeconds": 0.5}}
    try:
        with BackdropServer(binary, log=log, settings=settings, environment=environment(collector.endpoint)) as server:
            url = f"{server.base}/background?lat={LAT}&lon={LON}&width=320&height=568&format=png"
            status, _ = get(url)
            spans = collector.wait_for(lambda s: server_span(s))
            roots = server_span(spans)
            check("a cold request is answered and its trace reaches the collector", status == 200 and len(roots) == 1, f"{len(roots)} server spans")
            root = roots[0]
            trace = [s for s in collector.wait_for(lambda s: any(x["name"] == "cache.disk.write" for x in s)) if s["trace"] == root["trace"]]
            by_name = {}
            for span in trace:
                by_name.setdefault(span["name"], span)
            expected = ["background.render", "photo.choose", "cluster.claim", "flickr.search", "photo.rank", "image.prepare", "flickr.download",
                        "image.decode", "image.crop", "image.encode", "cache.disk.write"]
            check("it holds the request's path: photo choice, cluster claim, search, download, decode, crop, encode, disk write",
                  all(n in by_name for n in expected), f"missing {[n for n in expected if n not in by_name]}; got {sorted(by_name)}")
            parents = {"background.render": root["name"], "photo.choose": "background.render", "cluster.claim": "photo.choose",
                       "flickr.search": "photo.choose", "photo.rank": "photo.choose", "image.prepare": "background.render", "flickr.download": "image.prepare",
                       "image.decode": "image.prepare", "image.crop": "image.prepare", "image.encode": "background.render",
                       "cache.disk.write": "background.render"}
            ids = {s["id"]: s["name"] for s in trace}
            wrong = {n: ids.get(by_name[n]["parent"]) for n, p in parents.items() if n in by_name and ids.get(by_name[n]["parent"]) != p}
            check("each span under the right parent, one trace rooted at the server span", not wrong and root["parent"] == "", str(wrong))
            attributes = root["attributes"]
            check("the server span names the route, status, format, photo source, cell and cache miss",
                  root["name"] == "GET /background" and attributes.get("http.response.status_code") == 200 and attributes.get("backdrop.format") == "png"
                  and attributes.get("backdrop.source") == "flickr" and attributes.get("backdrop.cell") == "u09tv" and attributes.get("backdrop.cache") == "miss",
                  json.dumps(attributes))
            search = by_name.get("flickr.search", {}).get("attributes", {})
            download = by_name.get("flickr.download", {}).get("attributes", {})
            check("the search says its step, radius and results; the download its size and bytes",
                  search.get("backdrop.search.step") == 1 and search.get("backdrop.outcome") == "ok" and search.get("backdrop.search.results", 0) > 0
                  and download.get("backdrop.bytes", 0) > 0 and download.get("backdrop.photo.size"), f"{search} {download}")

            rank = by_name.get("photo.rank", {}).get("attributes", {})
            check("the ranking says the sky at the place, how many it ranked, and the chosen photo's score (no coordinates)",
                  rank.get("backdrop.sun.phase") in ("night", "twilight", "golden", "day") and rank.get("backdrop.photo.candidates", 0) > 0
                  and all(len(str(rank.get(f"backdrop.photo.score.{shape}", "")).split(",")) == 13 for shape in ("portrait", "square", "landscape")),
                  json.dumps(rank))

            before = len(collector.snapshot())
            status, _ = get(url)
            spans = collector.wait_for(lambda s: len(server_span(s)) >= 2)
            hit = [s for s in server_span(spans) if s["trace"] != root["trace"]]
            hit_trace = [s for s in spans if hit and s["trace"] == hit[0]["trace"]]
            check("a cache hit is a short trace: the server span alone, saying memory",
                  status == 200 and len(hit) == 1 and len(hit_trace) == 1 and hit[0]["attributes"].get("backdrop.cache") == "memory",
                  f"{[s['name'] for s in hit_trace]} of {len(spans) - before} new spans")

            caller_trace, caller_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
            get(f"{server.base}/background.json?lat={LAT}&lon={LON}&width=64&height=64", {"traceparent": f"00-{caller_trace}-{caller_span}-01"})
            spans = collector.wait_for(lambda s: server_span(s, caller_trace, "/background.json"))
            continued = server_span(spans, caller_trace, "/background.json")
            check("an incoming traceparent is continued: the caller's trace, its span as parent",
                  len(continued) == 1 and continued[0]["parent"] == caller_span, str([(s["trace"], s["parent"]) for s in continued]))
            check("and its preview has its span under it", any(s["name"] == "background.preview" and s["trace"] == caller_trace for s in spans))

            # Another place, sought anew, from a client address of its own, carrying every W3C trace header.
            caller = {"traceparent": f"00-{'5' * 32}-{'6' * 16}-01", "tracestate": "vendor=opaque", "baggage": "user=someone"}
            router_flood.request("127.0.0.1", server.port, "/background?lat=-33.8688&lon=151.2093&width=64&height=64", "127.0.0.5", caller, 30)
            spans = collector.wait_for(lambda s: len(server_span(s)) >= 3)
            text = json.dumps([spans, collector.resources])
            leaks = [secret for secret in (KEY, PASSWORD, LAT, LON, "-33.8688", "151.2093", "api_key", "127.0.0.5") if secret in text]
            check("no span holds the Flickr key, the database password, the coordinates or the client's address",
                  not leaks and len(spans) > 10, f"found {leaks} in {len(spans)} spans")
            upstream = server.flickr_stats()
            check("Flickr and the image host get no traceparent, tracestate or baggage (recorded by the stand-in)",
                  upstream["requests"] >= 4 and not upstream["tracing_headers"],
                  f"{upstream['requests']} requests; {upstream['tracing_headers'][:3]}")
            queries = {s["attributes"].get("url.query") for s in spans if s["kind"] == "server"}
            check("queries are recorded with lat and lon redacted", f"lat=REDACTED&lon=REDACTED&width=320&height=568&format=png" in queries, str(queries))
            check("the resource names the service", any(r.get("service.name") == "backdrop" for r in collector.resources), str(collector.resources[:1]))

        lines = [json.loads(line) for line in open(log) if line.startswith("{")]
        requests = [line for line in lines if line.get("message") == "request" and line.get("path") == "/background"]
        traced = {s["trace"] for s in collector.snapshot()}
        check("logs are JSON lines whose request lines carry the trace_id and span_id of their request",
              requests and all(line.get("trace_id") in traced and len(line.get("span_id", "")) == 16 for line in requests),
              str(requests[:1]))
        with open(os.path.join(output, "traces.json"), "w") as f:
            json.dump(collector.snapshot(), f, indent=1)
    finally:
        collector.close()


def unreachable(binary, output):
    """A dead collector (nothing listens) and a hanging one (takes the request, never answers)."""
    baseline = None
    for name, collector in (("off", None), ("dead", None), ("hanging", Collector("hang"))):
        env = {} if name == "off" else environment(collector.endpoint if collector else f"http://127.0.0.1:{free_port()}")
        try:
            with BackdropServer(binary, log=os.path.join(output, f"backdrop-traces-{name}.log"), environment=env) as server:
                url = f"{server.base}/background?lat=10&lon=10&width=64&height=64"
                answers = [get(url) for _ in range(40)]
                statuses = {a[0] for a in answers}
                median = statistics.median(a[1] for a in answers[1:])
                if name == "off":
                    baseline = median
                    continue
                if collector:
                    collector.wait_for(lambda s: collector.requests > 0, 10)
                check(f"a {name} collector changes no answer and makes no request wait on an export (hits' median {median * 1000:.1f} ms, "
                      f"{baseline * 1000:.1f} ms with tracing off; make bench measures the cost)",
                      # An export waited on costs its 3-s timeout: an answer of 2 s or more means one was waited on. How
                      # fast the answers are is make bench's to say, not a correctness check's.
                      statuses == {200} and max(a[1] for a in answers) < 2,
                      f"statuses {statuses}, slowest {max(a[1] for a in answers):.3f} s")
                started = time.monotonic()
                server.processes[-1].terminate()
                code = server.processes[-1].wait(30)
                took = time.monotonic() - started
                check(f"and the server stops on SIGTERM within twice the exporter's 3-s timeout (exit {code} after {took:.1f} s)",
                      code == 0 and took < 6 + 2)
        finally:
            if collector:
                collector.close()


def flush(binary, output):
    collector = Collector()
    try:
        env = environment(collector.endpoint, OTEL_BSP_SCHEDULE_DELAY="60000")
        with BackdropServer(binary, log=os.path.join(output, "backdrop-traces-flush.log"), environment=env) as server:
            for place in ("lat=1&lon=1", "lat=2&lon=2", "lat=3&lon=3"):
                get(f"{server.base}/background?{place}&width=64&height=64")
            queued = len(collector.snapshot())
            server.processes[-1].terminate()
            code = server.processes[-1].wait(30)
        roots = server_span(collector.snapshot())
        check("shutdown flushes the spans still queued (a minute's batch delay, none sent before SIGTERM)",
              queued == 0 and len(roots) == 3 and code == 0, f"{queued} before, {len(roots)} server spans after, exit {code}")
    finally:
        collector.close()


def sampling(binary, output):
    collector = Collector()
    try:
        env = environment(collector.endpoint, OTEL_TRACES_SAMPLER="", OTEL_TRACES_SAMPLER_ARG="0.25")
        trusted = {"server": {"trustedProxies": ["127.0.0.1"]}}  # the callers below stand for a trusted router
        with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-traces-sampling.log"), environment=env, settings=trusted) as server:
            for i in range(200):
                get(f"{server.base}/background?lat={i * 0.37 % 80:.3f}&lon={i * 1.13 % 170:.3f}&width=64&height=64")
            sampled = [f"{i:032x}" for i in range(1, 21)]
            unsampled = [f"{i:032x}" for i in range(101, 121)]
            for trace in sampled + unsampled:
                flag = "01" if trace in sampled else "00"
                get(f"{server.base}/background?lat=1&lon=1&width=65&height=65", {"traceparent": f"00-{trace}-00f067aa0ba902b7-{flag}"})
            server.processes[-1].terminate()
            server.processes[-1].wait(30)
        spans = collector.snapshot()
        roots = {s["trace"] for s in server_span(spans) if s["parent"] == ""}
        # Any route's server span roots a trace (the start-up's /health polls are sampled too).
        orphans = {s["trace"] for s in spans} - {s["trace"] for s in spans if s["kind"] == "server" and s["parent"] == ""} - set(sampled)
        check(f"at the default sampler and a ratio of 0.25, {len(roots)} of 200 new requests are traced (25 to 75 expected)",
              25 <= len(roots) <= 75)
        check("every trace is whole: no span outside a traced request's trace", not orphans and len(spans) > len(roots),
              f"{len(orphans)} traces without their server span")
        continued = {s["trace"] for s in server_span(spans)} & (set(sampled) | set(unsampled))
        check("a caller's sampled flag is followed: its 20 sampled traces continued, its 20 unsampled ones not recorded",
              continued == set(sampled), f"{len(continued & set(sampled))} sampled, {len(continued & set(unsampled))} unsampled recorded")

        collector.spans.clear()
        env = environment(collector.endpoint, OTEL_TRACES_SAMPLER="traceidratio", OTEL_TRACES_SAMPLER_ARG="0.5")
        low, high = "ab" * 8 + "0" * 16, "ab" * 8 + "f" * 16
        with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-traces-sampling.log"), environment=env, settings=trusted) as server:
            for trace, flag in ((low, "00"), (high, "01")):
                get(f"{server.base}/background?lat=1&lon=1&width=66&height=66", {"traceparent": f"00-{trace}-00f067aa0ba902b7-{flag}"})
            server.processes[-1].terminate()
            server.processes[-1].wait(30)
        recorded = {s["trace"] for s in server_span(collector.snapshot())}
        check("traceidratio decides by the caller's trace ID, whatever its flag", recorded == {low}, str(recorded))
    finally:
        collector.close()


def forced_from_outside(binary, output):
    """No client forces a trace: at a ratio of 0, a sampled traceparent from a peer that is not a trusted proxy, and an
    invalid one from anyone, trace nothing, while a valid one from the trusted proxy (127.0.0.2 here) still does.
    Percent-encoded names (l%61t, l%6Fn) are refused, and their values reach no span."""
    collector = Collector()
    try:
        env = environment(collector.endpoint, OTEL_TRACES_SAMPLER="parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG="0")
        settings = {"server": {"trustedProxies": ["127.0.0.2"]}}
        with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-traces-forced.log"), environment=env, settings=settings) as server:
            port = server.port

            def ask(path, traceparent, source):
                return router_flood.request("127.0.0.1", port, path, source, {"traceparent": traceparent})[0]

            sampled = [f"{i:032x}" for i in range(1, 11)]
            outside = [ask(f"/background?width={67 + i}&height=67", f"00-{t}-00f067aa0ba902b7-01", "127.0.0.3") for i, t in enumerate(sampled)]
            invalid = ["x", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-" + "ab" * 16 + "-00f067aa0ba902b7-01",
                       "00-" + "AB" * 16 + "-00f067aa0ba902b7-01", "00-" + "ab" * 16 + "-00f067aa0ba902b7-01" + "-x" * 4000]
            bad = [ask("/health", t, "127.0.0.2") for t in invalid]
            control = "cd" * 16
            ask("/health", f"00-{control}-00f067aa0ba902b7-01", "127.0.0.2")
            spans = collector.wait_for(lambda s: any(x["trace"] == control for x in s))
            check("a sampled traceparent from the trusted proxy is still continued (the check can see a trace)",
                  any(x["trace"] == control for x in spans), f"{len(spans)} spans")
            traced = {x["trace"] for x in spans} - {control}
            check("10 sampled traceparents from a client that is not a trusted proxy force no trace (ratio 0)",
                  outside == [200] * 10 and not (traced & set(sampled)), f"{len(traced & set(sampled))} traced")
            check("invalid traceparents (x, zero ids, version ff, upper case, 8 kB) are ignored: no trace at ratio 0",
                  bad == [200] * len(bad) and not traced, f"{len(traced)} other traces, statuses {bad}")
        collector.spans.clear()
        env = environment(collector.endpoint, OTEL_TRACES_SAMPLER="always_on")
        with BackdropServer(binary, flickr=False, log=os.path.join(output, "backdrop-traces-forced.log"), environment=env) as server:
            status = router_flood.request("127.0.0.1", server.port, f"/background?l%61t={LAT}&l%6Fn={LON}&width=68&height=68", "127.0.0.1")[0]
            status_cell = router_flood.request("127.0.0.1", server.port, "/background?cel%6C=u09tv", "127.0.0.1")[0]
            spans = collector.wait_for(lambda s: len(server_span(s)) >= 2)
            text = json.dumps(spans)
            check("percent-encoded parameter names are refused (400), and the coordinates they carried reach no span",
                  status == 400 and status_cell == 400 and LAT not in text and LON not in text and len(server_span(spans)) >= 2,
                  f"{status} {status_cell}, {[s['attributes'].get('url.query') for s in server_span(spans)]}")
    finally:
        collector.close()


def main():
    binary, output = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(output, exist_ok=True)
    print("tracing: OpenTelemetry traces through a stand-in OTLP/HTTP collector")
    for part in (traces, unreachable, flush, sampling, forced_from_outside):
        run_part(part, binary, output)
    finish("tracing")


if __name__ == "__main__":
    main()
