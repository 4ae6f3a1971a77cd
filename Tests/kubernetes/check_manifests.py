#!/usr/bin/env python3
"""deploy/kubernetes checked without a cluster: every kustomization rendered by kubectl's kustomize, each object
validated strictly against the Kubernetes API schemas (kubernetes-validate, offline), then cross-checked against what
the image and the service really are, and the router run for real.

usage: check_manifests.py PATH/TO/backdrop OUTPUT_DIR   (the release build: the flood is timed by its renders)

- Rendered: the base, overlays/with-postgres, and the base with components/service-monitor.
- Schemas: strict validation (unknown fields fail) against Kubernetes 1.30 and 1.37; the ServiceMonitor (a CRD, not
  in those schemas) is checked for what the Prometheus Operator reads from it.
- Against the Dockerfile: the user id, the port, the entrypoint, the cache volume, the stop signal.
- Against the service: the probe paths are routes of Public/openapi.yaml; the ConfigMap's config.json is read by the
  real binary (strict: any unknown key or bad value is an error) and serves; the environment variables from the
  Secret are ones the settings read; the memory and disk sizes cover the configured budgets; the grace period covers
  preStop and the request deadline; the autoscaler's maximum matches the router's ring and cluster.expectedReplicas.
- The router: `nginx -t` on its configuration with the replica names resolved to loopback (a private mount namespace
  with its own /etc/hosts), its routing rule the same as deploy/nginx.conf's, then nginx run in front of six stand-in
  replicas that record what reaches them: one replica per cell, cells spread, a stopped replica's cells (and only
  those) moved, the rest round-robin; X-Real-IP set to the client's address whatever the client sent, two clients
  told apart by it and by X-Forwarded-For from the router's one peer address, no trace headers passed on, /metrics not
  served; 503s passed back without ejecting a replica; limit_conn and limit_req biting one
  address and not another's ordinary traffic.
- The router in front of two live replicas (the release binary, the ConfigMap's config.json, one render thread): one
  client flooding new renders, plainly or forging X-Real-IP and X-Forwarded-For, is refused while a bystander's
  requests are all 200; so is one reaching a replica directly (not from a trusted proxy) with forged headers.
"""
import base64
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import kubernetes_validate
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import free_port  # noqa: E402
from checks import check, finish, run_part  # noqa: E402
import router_flood  # noqa: E402

K8S = os.path.join(ROOT, "deploy", "kubernetes")
VERSIONS = ["1.30.0", "1.37.0"]


def kustomize(path):
    out = subprocess.run(["kubectl", "kustomize", path], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"kubectl kustomize {path}: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def renders():
    """{name: [objects]} for every kustomization a user can apply."""
    with_monitor = tempfile.mkdtemp(prefix="backdrop-k8s-")
    with open(os.path.join(with_monitor, "kustomization.yaml"), "w") as f:
        yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                        "resources": [os.path.relpath(os.path.join(K8S, "base"), with_monitor)],
                        "components": [os.path.relpath(os.path.join(K8S, "components", "service-monitor"), with_monitor)]}, f)
    try:
        return {"base": kustomize(os.path.join(K8S, "base")),
                "overlays/with-postgres": kustomize(os.path.join(K8S, "overlays", "with-postgres")),
                "base + components/service-monitor": kustomize(with_monitor)}
    finally:
        shutil.rmtree(with_monitor, ignore_errors=True)


def find(objects, kind, name=None):
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if not found:
        raise LookupError(f"no {kind} {name or ''} in the rendered manifests")
    return found[0]


def schemas(rendered):
    for name, objects in rendered.items():
        problems = []
        for version in VERSIONS:
            for obj in objects:
                if obj["kind"] == "ServiceMonitor":
                    continue
                try:
                    kubernetes_validate.validate(obj, version, strict=True)
                except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError, kubernetes_validate.InvalidSchemaError) as error:
                    problems.append(f"{version} {obj['kind']}/{obj['metadata'].get('name')}: {getattr(error, 'message', error)}")
        kinds = sorted({o["kind"] for o in objects})
        check(f"{name}: {len(objects)} objects valid against the Kubernetes {' and '.join(VERSIONS)} schemas (strict)", not problems,
              "; ".join(problems[:3]) if problems else ", ".join(kinds))
    monitor = find(rendered["base + components/service-monitor"], "ServiceMonitor")
    service = find(rendered["base"], "Service", "backdrop")
    selector = monitor["spec"]["selector"]["matchLabels"]
    ports = [p["name"] for p in service["spec"]["ports"]]
    check("the ServiceMonitor selects the replicas' Service and scrapes its named port at /metrics",
          monitor["apiVersion"] == "monitoring.coreos.com/v1"
          and all(service["metadata"]["labels"].get(k) == v for k, v in selector.items())
          and all(e["port"] in ports and e["path"] == "/metrics" for e in monitor["spec"]["endpoints"]), json.dumps(monitor["spec"]))


def dockerfile():
    text = open(os.path.join(ROOT, "Dockerfile")).read()
    uid = int(re.search(r"useradd [^\n]*--uid (\d+)", text).group(1))
    return {"uid": uid, "expose": int(re.search(r"^EXPOSE (\d+)", text, re.M).group(1)),
            "entrypoint": json.loads(re.search(r"^ENTRYPOINT (\[.*\])", text, re.M).group(1)),
            "volume": json.loads(re.search(r"^VOLUME (\[.*\])", text, re.M).group(1)),
            "stopsignal": re.search(r"^STOPSIGNAL (\S+)", text, re.M).group(1),
            "copies": dict(reversed(m) for m in re.findall(r"^COPY (?!--from)(\S+) (\S+)", text, re.M))}


def mebibytes(quantity):
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}
    number, unit = re.fullmatch(r"(\d+)(Ki|Mi|Gi)", quantity).groups()
    return int(number) * units[unit]


def against_image_and_service(rendered, binary, output):
    objects = rendered["base"]
    image = dockerfile()
    statefulset = find(objects, "StatefulSet", "backdrop")
    pod = statefulset["spec"]["template"]["spec"]
    container = pod["containers"][0]
    config_map = next(o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("backdrop-config"))
    config = json.loads(config_map["data"]["config.json"])
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}

    check("the pod runs as the image's user, non-root", pod["securityContext"]["runAsUser"] == image["uid"] and pod["securityContext"]["runAsNonRoot"],
          f"runAsUser {pod['securityContext'].get('runAsUser')}, the image's {image['uid']}")
    check("with a read-only root filesystem, no privilege escalation and no capabilities",
          container["securityContext"]["readOnlyRootFilesystem"] and not container["securityContext"]["allowPrivilegeEscalation"]
          and container["securityContext"]["capabilities"]["drop"] == ["ALL"])
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check("the container port is the image's EXPOSE and the config's server.port, on every address",
          ports.get("http") == image["expose"] == config["server"]["port"] and config["server"]["host"] == "0.0.0.0", f"{ports} {image['expose']}")
    config_path = container["args"][container["args"].index("--config") + 1]
    check("the image's entrypoint is kept and serves the mounted config.json",
          "command" not in container and container["args"][0] == "serve"
          and config_path == os.path.join(mounts["config"], "config.json") and volumes["config"]["configMap"]["name"] == config_map["metadata"]["name"],
          f"args {container['args']}, mounts {mounts}")
    check("the cache is the image's volume and the config's cache.folder, on an emptyDir",
          mounts.get("cache") == config["cache"]["folder"] and config["cache"]["folder"] in image["volume"] and "emptyDir" in volumes["cache"],
          f"{mounts.get('cache')} {config['cache']['folder']} {image['volume']}")
    size = mebibytes(volumes["cache"]["emptyDir"]["sizeLimit"])
    check("its sizeLimit covers cache.maxMB with a fifth or more of headroom", size >= config["cache"]["maxMB"] * 1.2,
          f"{size} MiB for cache.maxMB {config['cache']['maxMB']}")
    check("the config's folders are where the image copies Public/ and StockPhotos/",
          image["copies"].get("/app/Public") == "Public" and config["server"]["publicFolder"] == "/app/Public"
          and image["copies"].get("/app/StockPhotos") == "StockPhotos" and config["photos"]["stockFolder"] == "/app/StockPhotos", str(image["copies"]))

    openapi = yaml.safe_load(open(os.path.join(ROOT, "Public", "openapi.yaml")))
    probes = {kind: container[kind] for kind in ("readinessProbe", "livenessProbe", "startupProbe")}
    paths = {kind: probe.get("httpGet", {}).get("path") for kind, probe in probes.items()}
    check("every probe asks a route of the OpenAPI document on the named port",
          all(path in openapi["paths"] and probes[kind]["httpGet"]["port"] == "http" for kind, path in paths.items()), str(paths))
    health = openapi["paths"].get(paths["livenessProbe"], {}).get("get", {})
    check("liveness asks /health, which answers 200 whatever PostgreSQL or Flickr do (never an exec of --require-shared)",
          paths["livenessProbe"] == "/health" and "200" in health.get("responses", {}) and "exec" not in probes["livenessProbe"], str(paths))
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    grace = pod["terminationGracePeriodSeconds"]
    deadline = config["photos"]["requestDeadlineSeconds"]
    check("the stop signal is the image's SIGTERM, and the grace period covers preStop, the request deadline and a render",
          image["stopsignal"] == "SIGTERM" and pre_stop[0] == "/bin/sleep" and grace >= int(pre_stop[1]) + deadline + 10,
          f"grace {grace} s, preStop {pre_stop}, deadline {deadline} s")

    sources = "".join(open(os.path.join(dirpath, name)).read() for dirpath, _, names in os.walk(os.path.join(ROOT, "Sources", "Backdrop", "Settings"))
                      for name in names if name.endswith(".swift"))
    read = set(re.findall(r'"((?:BACKDROP|FLICKR|OTEL)_[A-Z_]+)"', sources))  # the variables the sections name
    names = [e["name"] for e in container["env"]]
    check("the environment from the Secret is what the settings read, optional (no key: stock photos; no URL: alone)",
          set(names) <= read and all(e["valueFrom"]["secretKeyRef"]["optional"] for e in container["env"]), f"{names} of {sorted(read)}")
    overlay = rendered["overlays/with-postgres"]
    env = {e["name"]: e for e in find(overlay, "StatefulSet", "backdrop")["spec"]["template"]["spec"]["containers"][0]["env"]}
    database = find(overlay, "Service", "backdrop-postgres")
    postgres_env = {e["name"]: e for e in find(overlay, "StatefulSet", "backdrop-postgres")["spec"]["template"]["spec"]["containers"][0]["env"]}
    password = env.get("POSTGRES_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {})
    url = env.get("BACKDROP_POSTGRES_URL", {}).get("value", "")
    names = [e["name"] for e in find(overlay, "StatefulSet", "backdrop")["spec"]["template"]["spec"]["containers"][0]["env"]]
    check("overlays/with-postgres ships no password: both the database and BACKDROP_POSTGRES_URL take it from the Secret the user creates",
          password == {"name": "backdrop-postgres", "key": "POSTGRES_PASSWORD"} and not password.get("optional")
          and postgres_env.get("POSTGRES_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef") == password
          and not any(o["kind"] == "Secret" for o in overlay)
          and url.startswith("postgres://backdrop:$(POSTGRES_PASSWORD)@") and f"@{database['metadata']['name']}:{database['spec']['ports'][0]['port']}/" in url
          and names.index("POSTGRES_PASSWORD") < names.index("BACKDROP_POSTGRES_URL"), f"{password} {url}")
    text = open(os.path.join(K8S, "overlays", "with-postgres", "kustomization.yaml")).read()
    check("and it says it is for trying out, and how to make the password", "For trying Backdrop out" in text and "openssl rand" in text)

    budgets = config["render"]["preparedImagesMemoryMB"] + config["cache"]["renderedImagesMemoryMB"] + config["flickr"]["downloadCacheMB"] + config["cache"]["previewsMemoryMB"]
    workers = config["render"].get("workers", 0)
    request, limit = (mebibytes(container["resources"][k]["memory"]) for k in ("requests", "limits"))
    scratch = workers * 48
    decode = config["images"]["maxSourceMegapixels"] * 3
    check("render.workers is set (the node's cores must not size the render threads)", workers >= 1, str(workers))
    check("the memory request covers the budgets, the 100 MB make bench allows them and 48 MB of scratch per render thread; "
          "the limit one largest decode more", request >= budgets + 100 + scratch and limit >= request + decode,
          f"budgets {budgets} MB + 100 + {workers} x 48 = {budgets + 100 + scratch}, request {request} MiB; limit {limit} MiB >= request + {decode}")

    hpa = find(objects, "HorizontalPodAutoscaler", "backdrop")
    ordinals = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Service" and re.fullmatch(r"backdrop-\d+", o["metadata"]["name"]))
    ring = re.findall(r"server (backdrop-\d+):(\d+)", router_conf(objects))
    check("the autoscaler scales the StatefulSet from its replica count to the router ring's size, one Service per ordinal",
          hpa["spec"]["scaleTargetRef"]["name"] == "backdrop" and hpa["spec"]["minReplicas"] == statefulset["spec"]["replicas"]
          and ordinals == [f"backdrop-{i}" for i in range(hpa["spec"]["maxReplicas"])] and sorted({n for n, _ in ring}) == ordinals
          and all(int(p) == image["expose"] for _, p in ring), f"{hpa['spec']['minReplicas']}-{hpa['spec']['maxReplicas']}, {ordinals}")
    check("cluster.expectedReplicas is the autoscaler's maximum (replicas alone together stay within the key's budget)",
          config["cluster"]["expectedReplicas"] >= hpa["spec"]["maxReplicas"], str(config["cluster"]["expectedReplicas"]))
    check("the autoscaler waits before scaling down (each replica holds its own cache)",
          hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] >= 300)
    budgets_ok = []
    for pdb in (o for o in objects if o["kind"] == "PodDisruptionBudget"):
        spec = pdb["spec"]
        budgets_ok.append("maxUnavailable" in spec and spec["maxUnavailable"] >= 1 and "minAvailable" not in spec)
    check("every PodDisruptionBudget lets one pod go at any count, so a drain is never blocked", len(budgets_ok) == 2 and all(budgets_ok))
    policy = find(objects, "NetworkPolicy", "backdrop")
    sources_in = [f.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/component") or f.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name")
                  for rule in policy["spec"]["ingress"] for f in rule["from"]]
    egress = sorted({p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]})
    check("only the router (and Prometheus) reaches the replicas; they reach DNS, PostgreSQL and HTTPS only",
          sources_in == ["router", "prometheus"] and egress == [53, 443, 5432], f"from {sources_in}, to ports {egress}")
    prometheus = [f for rule in policy["spec"]["ingress"] for f in rule["from"] if "namespaceSelector" in f]
    check("Prometheus only from its own named namespace, not any pod that calls itself prometheus",
          len(prometheus) == 1 and prometheus[0]["namespaceSelector"].get("matchLabels", {}).get("kubernetes.io/metadata.name"), str(prometheus))

    # The ConfigMap's config.json read by the real binary (strict) and served, its folders pointed at this checkout.
    port = free_port()
    work = tempfile.mkdtemp(prefix="backdrop-k8s-config-")
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        f.write(config_map["data"]["config.json"])
    env = dict(os.environ, BACKDROP_PHOTO_SOURCES="flickr,stock", BACKDROP_HOST="127.0.0.1", BACKDROP_PORT=str(port), BACKDROP_PUBLIC_FOLDER=os.path.join(ROOT, "Public"),
               BACKDROP_STOCK_FOLDER=os.path.join(ROOT, "StockPhotos"), BACKDROP_CACHE_FOLDER=os.path.join(work, "cache"))
    env.pop("FLICKR_API_KEY", None)
    env.pop("BACKDROP_POSTGRES_URL", None)
    process = subprocess.Popen([binary, "serve", "--config", path], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        answer = None
        until = time.monotonic() + 30
        while answer is None and time.monotonic() < until and process.poll() is None:
            try:
                answer = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2).read())
            except OSError:
                time.sleep(0.1)  # until it listens; bounded
        check("the ConfigMap's config.json is read by the real binary (every key known, every value valid) and it serves",
              answer is not None and answer.get("status") == "ok" and answer.get("stockPhotos", 0) > 0, f"{answer} exit {process.poll()}")
    finally:
        process.terminate()
        log = process.communicate(timeout=30)[0].decode(errors="replace")
        with open(os.path.join(output, "kubernetes-config.log"), "w") as f:
            f.write(log)
        shutil.rmtree(work, ignore_errors=True)


def router_conf(objects):
    return next(o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("backdrop-router"))["data"]["nginx.conf"]


def routing_rule(text):
    """The directives that decide where a request goes, server names left out."""
    upstreams = {name: [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith("server ")]
                 for name, body in re.findall(r"upstream (\w+) \{(.*?)\}", text, re.S)}
    mapping = re.search(r"map \$arg_cell \$backdrop_upstream \{(.*?)\}", text, re.S)
    location = re.search(r"location / \{(.*?)\}", text, re.S)
    keep = ("proxy_pass", "proxy_next_upstream ", "proxy_set_header", "limit_")
    return {"upstreams": upstreams, "map": " ".join(mapping.group(1).split()) if mapping else None,
            "location": sorted(line.strip() for line in (location.group(1) if location else "").splitlines() if line.strip().startswith(keep))}


class Replica(http.server.ThreadingHTTPServer):
    """A stand-in replica on 127.0.1.N:8080 that answers with its own name and records what reached it: `/busy` is a
    503 with Retry-After (as Backdrop refuses a client over its share), `/hold` waits until `release` is set."""
    daemon_threads = True
    seen = []  # (replica, path, headers as a dict of lower-case names, peer address), shared by every stand-in
    release = threading.Event()


def stand_in(name, address):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection: a stopped replica leaves no connection behind

        def do_GET(self):
            Replica.seen.append((name, self.path, {k.lower(): v for k, v in self.headers.items()}, self.client_address[0]))
            if self.path.startswith("/hold"):
                Replica.release.wait(30)
            body = name.encode()
            self.send_response(503 if self.path.startswith("/busy") else 200)
            if self.path.startswith("/busy"):
                self.send_header("Retry-After", "1")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = Replica((address, 8080), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_router(text, work, port):
    """nginx with the router's configuration on 127.0.0.1:`port`, the replica names resolved to 127.0.1.1-6 in a
    private mount namespace, after `nginx -t` accepts it; returns the process once it answers (bounded), the names and
    their addresses."""
    names = sorted(set(re.findall(r"server (backdrop-\d+):", text)))
    addresses = {name: f"127.0.1.{i + 1}" for i, name in enumerate(names)}
    with open(os.path.join(work, "hosts"), "w") as f:
        f.write("127.0.0.1 localhost\n" + "".join(f"{a} {n}\n" for n, a in addresses.items()))
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(text.replace("listen 8080;", f"listen 127.0.0.1:{port};").replace("worker_processes auto;", "worker_processes 1;")
                .replace(" /tmp/", f" {work}/"))
    tested = subprocess.run(["unshare", "--mount", "sh", "-c", f"mount --bind {work}/hosts /etc/hosts && nginx -t -e stderr -c {conf}"],
                            capture_output=True, text=True, timeout=30)
    check("nginx -t accepts the router's configuration, the replica names resolved to loopback", tested.returncode == 0,
          tested.stderr.strip().splitlines()[-1] if tested.stderr.strip() else "")
    inside = f"mount --bind {work}/hosts /etc/hosts && exec nginx -e stderr -c {conf} -g 'daemon off;'"
    # Its log to a file: a pipe read only at the end would fill with the access log and stall nginx.
    log = open(os.path.join(work, "nginx.log"), "w")
    process = subprocess.Popen(["unshare", "--mount", "sh", "-c", inside], stdout=log, stderr=subprocess.STDOUT)
    process.log_path = log.name
    until = time.monotonic() + 20
    while time.monotonic() < until:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/router-health", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)  # until nginx listens; bounded
    return process, names, addresses


def stop_router(process, output, name):
    process.terminate()
    process.wait(timeout=30)
    shutil.copyfile(process.log_path, os.path.join(output, name))


def router(rendered, output):
    objects = rendered["base"]
    text = router_conf(objects)
    compose = open(os.path.join(ROOT, "deploy", "nginx.conf")).read()
    ours, theirs = routing_rule(text), routing_rule(compose)
    check("the router routes by the same rule as deploy/nginx.conf (hash $arg_cell consistent, the map, retries, headers, limits)",
          ours == theirs and "hash $arg_cell consistent;" in ours["upstreams"].get("backdrop_by_cell", []), f"{ours} vs {theirs}")
    check("neither router counts a 503 as a replica's failure (it is one client's refusal)",
          all(re.search(r"proxy_next_upstream [^;]*http_503", conf) is None and "proxy_next_upstream error timeout" in conf for conf in (text, compose)))
    work = tempfile.mkdtemp(prefix="backdrop-k8s-router-")
    os.chmod(work, 0o755)
    names = sorted(set(re.findall(r"server (backdrop-\d+):", text)))
    replicas = {name: stand_in(name, f"127.0.1.{i + 1}") for i, name in enumerate(names)}
    port = 18480
    process, names, addresses = start_router(text, work, port)
    base = f"http://127.0.0.1:{port}"
    try:
        def who(path, source="127.0.0.1"):
            return router_flood.request("127.0.0.1", port, path, source)

        def name_of(path, source="127.0.0.1"):
            connection = router_flood.http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
            try:
                connection.request("GET", path)
                return connection.getresponse().read().decode()
            finally:
                connection.close()

        cells = [f"u{n:04d}" for n in range(60)]
        first = {c: name_of(f"/background?cell={c}&blur=0") for c in cells}
        again = {c: name_of(f"/background?cell={c}&blur=1&format=webp", "127.0.0.20") for c in cells}
        spread = {n: sum(1 for v in first.values() if v == n) for n in names}
        check("each cell goes to one replica, whatever else its URL asks", first == again, "")
        check("and the cells spread over every replica on the ring", all(count > 0 for count in spread.values()), str(spread))
        plain = [name_of("/health", "127.0.0.21") for _ in range(len(names) * 2)]
        check("requests without a cell go round-robin", sorted(set(plain)) == names, str(sorted(set(plain))))

        Replica.seen.clear()
        forged = {"X-Real-IP": "198.51.100.7", "X-Forwarded-For": "203.0.113.9", "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                  "tracestate": "a=b", "baggage": "user=x"}
        router_flood.request("127.0.0.1", port, "/health", "127.0.0.2", forged)
        got = Replica.seen[-1][2] if Replica.seen else {}
        check("the router says who the client is: X-Real-IP is its own peer, whatever the client sent",
              got.get("x-real-ip") == "127.0.0.2" and got.get("x-forwarded-for", "").split(", ")[-1] == "127.0.0.2", str(got))
        check("a client's trace headers do not reach the replicas", not any(k in got for k in ("traceparent", "tracestate", "baggage")),
              str(sorted(got)))
        router_flood.request("127.0.0.1", port, "/health", "127.0.0.3", forged)
        (_, _, one, one_peer), (_, _, other, other_peer) = Replica.seen[-2:]
        check("two clients reach the replicas from the router's address (the peer a replica trusts), told apart by X-Real-IP"
              " and the last X-Forwarded-For",
              one_peer == other_peer == "127.0.0.1" and (one.get("x-real-ip"), other.get("x-real-ip")) == ("127.0.0.2", "127.0.0.3")
              and one.get("x-forwarded-for", "").split(", ")[-1] == "127.0.0.2" and other.get("x-forwarded-for", "").split(", ")[-1] == "127.0.0.3",
              str(Replica.seen[-2:]))
        check("/metrics is not served through the router", who("/metrics", "127.0.0.2")[0] == 404)

        busy = [who(f"/busy?n={n}", "127.0.0.3")[0] for n in range(3 * len(names))]
        after = [who("/health", "127.0.0.4") for _ in range(2 * len(names))]
        check("503s from every replica go back to their client as 503s, and eject no replica: the next requests are all served",
              busy == [503] * len(busy) and [a[0] for a in after] == [200] * len(after), f"busy {sorted(set(busy))}, after {[a[0] for a in after]}")

        # limit_conn: 32 requests in progress per address; past it, 429 at once.
        Replica.release.clear()
        def holding():
            return sum(1 for r in Replica.seen if r[1].startswith("/hold"))

        held = router_flood.concurrent(lambda n: who(f"/hold?n={n}", "127.0.0.5")[0], 40, release=Replica.release,
                                       settle=lambda results: holding() >= 32 and sum(r is not None for r in results) >= 8)
        check("32 requests in progress from one address are served, the 33rd to 40th get 429 at once (limit_conn)",
              sorted(held) == [200] * 32 + [429] * 8, f"{sorted(held)}")
        Replica.release.clear()
        before = holding()
        polite = router_flood.concurrent(lambda n: who(f"/hold?p={n}", "127.0.0.6")[0], 8, release=Replica.release,
                                         settle=lambda results: holding() >= before + 8)
        check("a page's eight parallel requests from another address meet no limit", polite == [200] * 8, str(polite))
        Replica.release.set()

        # limit_req: 50 a second with bursts of 200 per address.
        burst = router_flood.concurrent(lambda n: who(f"/health?r={n}", "127.0.0.7")[0], 400, threads=16)
        counts = {status: burst.count(status) for status in sorted(set(burst))}
        check("400 requests at once from one address: the burst of 200 and more are served, the rest get 429 (limit_req)",
              counts.get(429, 0) > 0 and counts.get(200, 0) >= 200 and set(counts) <= {200, 429}, str(counts))
        ordinary = [who(f"/health?o={n}", "127.0.0.8")[0] for n in range(100)]
        check("100 requests in a row from another address meet no limit", ordinary == [200] * 100, str(sorted(set(ordinary))))

        gone = names[2]
        replicas[gone].shutdown()
        replicas[gone].server_close()
        after = {c: name_of(f"/background?cell={c}&blur=0", "127.0.0.9") for c in cells}
        moved = [c for c in cells if after[c] != first[c]]
        check(f"{gone} stopped: only its cells move, each to another replica, and every request is answered",
              sorted(moved) == sorted(c for c in cells if first[c] == gone) and all(after[c] != gone for c in cells), f"{len(moved)} moved")
    finally:
        Replica.release.set()
        stop_router(process, output, "kubernetes-router.log")
        for server in replicas.values():
            server.shutdown()
            server.server_close()
        shutil.rmtree(work, ignore_errors=True)


def router_in_front_of_backdrop(rendered, binary, output):
    """The router in front of two live Backdrops (backdrop-0 and backdrop-1; the other names have no replica, so they
    are skipped as a stopped replica is), each serving the ConfigMap's config.json with one render thread and this
    router's address trusted: a flood of new renders from one client, plain or forging headers, leaves a bystander's
    requests at 200."""
    objects = rendered["base"]
    text = router_conf(objects)
    config_map = next(o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("backdrop-config"))
    work = tempfile.mkdtemp(prefix="backdrop-k8s-live-")
    os.chmod(work, 0o755)
    processes = []
    port = 18481
    router = None
    try:
        for index in range(2):
            config = json.loads(config_map["data"]["config.json"])
            config["server"].update({"host": f"127.0.1.{index + 1}", "port": 8080, "publicFolder": os.path.join(ROOT, "Public"),
                                     "trustedProxies": ["127.0.0.1"], "logLevel": "warning"})
            config["photos"]["stockFolder"] = os.path.join(ROOT, "StockPhotos")
            config["cache"]["folder"] = os.path.join(work, f"cache-{index}")
            config["render"]["workers"] = 1  # as one core of a node: the flood is refused by Backdrop, not only by the router
            path = os.path.join(work, f"config-{index}.json")
            with open(path, "w") as f:
                json.dump(config, f)
            env = {k: v for k, v in os.environ.items() if k not in ("FLICKR_API_KEY", "BACKDROP_POSTGRES_URL")}
            env["BACKDROP_PHOTO_SOURCES"] = "flickr,stock"  # never beyond loopback: no Commons
            log = open(os.path.join(output, f"kubernetes-live-{index}.log"), "w")
            processes.append(subprocess.Popen([binary, "serve", "--config", path], env=env, stdout=log, stderr=subprocess.STDOUT))
        for index in range(2):
            check(f"replica backdrop-{index} serves the ConfigMap's config on 127.0.1.{index + 1}:8080",
                  router_flood.wait_until(lambda: router_flood.request(f"127.0.1.{index + 1}", 8080, "/health", "127.0.0.1")[0] == 200, 60))
        router, _, _ = start_router(text, work, port)
        for flooder, bystander, forge, what in [("127.0.0.2", "127.0.0.3", None, "one client"),
                                                 ("127.0.0.4", "127.0.0.5", "headers", "one client forging X-Real-IP and X-Forwarded-For")]:
            refused, statuses, answers = router_flood.bystander_under_flood("127.0.0.1", port, flooder, bystander, "u09tv", forge=forge)
            check(f"{what} flooding new renders through the router is refused", refused, str(statuses))
            check(f"while it floods, a bystander's /health, cached image, script, JSON and own render are all 200 (no 502, no refusal)",
                  all(status == 200 for _, status in answers), f"{router_flood.summary(answers)}; flood {statuses}")
        # Straight to a replica, from an address outside its trusted proxies: a forged X-Real-IP and X-Forwarded-For
        # name nobody, and the flood is one client's, refused while another client is served.
        refused, statuses, answers = router_flood.bystander_under_flood("127.0.1.2", 8080, "127.0.0.6", "127.0.0.7", "u09tv", forge="headers")
        check("one client reaching a replica directly, forging X-Real-IP and X-Forwarded-For, is refused as one client", refused, str(statuses))
        check("while another client reaching it directly is served", all(status == 200 for _, status in answers),
              f"{router_flood.summary(answers)}; flood {statuses}")
    finally:
        if router:
            stop_router(router, output, "kubernetes-live-router.log")
        for process in processes:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    binary, output = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(output, exist_ok=True)
    print("kubernetes: deploy/kubernetes rendered, validated against the API schemas and cross-checked")
    try:
        rendered = renders()
        check("kubectl kustomize renders the base, overlays/with-postgres and components/service-monitor", True,
              ", ".join(f"{k}: {len(v)}" for k, v in rendered.items()))
    except Exception as error:
        check("kubectl kustomize renders every kustomization", False, f"{type(error).__name__}: {error}")
        finish("kubernetes")
    run_part(schemas, rendered)
    run_part(against_image_and_service, rendered, binary, output)
    run_part(router, rendered, output)
    run_part(router_in_front_of_backdrop, rendered, binary, output)
    finish("kubernetes")


if __name__ == "__main__":
    main()
