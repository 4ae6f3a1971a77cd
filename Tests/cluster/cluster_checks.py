#!/usr/bin/env python3
"""Three replicas sharing one Flickr key through a real PostgreSQL, on loopback. Prints one `ok`/`FAIL` line per check
and `cluster: N passed, N failed`; exits non-zero on any failure.

usage: cluster_checks.py PATH/TO/backdrop

Starts Debian's PostgreSQL (initdb'd into a temporary folder, run as an unprivileged user), the stand-in Flickr and
three replicas, then checks:
- start-up: a malformed URL, a wrong password, an unknown database and a schema from a newer Backdrop each stop the
  replica with exit code 2 and a message naming cluster.postgresURL, the password never shown;
- (a) 300 concurrent requests over 10 new cells, spread over the replicas: exactly 10 Flickr searches, and every
  replica serves each cell the same Flickr photo, also after a restart with an empty cache;
- deploy/compose.yaml: three replicas built from the Dockerfile, each given the database's URL, its own cache volume,
  and named in nginx.conf; PostgreSQL and nginx beside them;
- nginx with deploy/nginx.conf in front: a cell URL always reaches the same replica, other URLs go round-robin;
- (b) with a budget of 12 calls an hour, 40 new cells over the replicas: at most 12 Flickr calls, every answer a 200;
- (c) PostgreSQL stopped mid-run, then frozen (SIGSTOP): every request a 200 within the deadline, /health says
  degraded; once it is back the replicas share again (one search per new cell);
- (d) a replica killed with SIGKILL while it holds a cell's lease (Flickr hanging), at the default lease (15 s) and
  deadline (10 s), with requests arriving at the other replicas all along: the cell is searched again within the lease
  plus one second of the claim (and counted as taken over), every answer meanwhile is a 200 within the deadline, and a
  stock photo served while waiting does not keep the cell on stock past the lease;
- (e) what one replica learned reaches the others through PostgreSQL: a cell whose search failed (Flickr's code 105),
  a cell with nothing usable (empty results), and a rejected key (code 100): another replica asked for the same cell
  (or, for the key, any cell) serves stock without calling Flickr, and counts what it read.
Each part that counts per cell and 15-minute window starts with at least a minute of its window left (waiting for the
next window otherwise), so that no count straddles two windows. Everything binds 127.0.0.1, every wait is bounded, and
every process is stopped at the end.
"""
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from replicas import ROOT, FlickrStandIn, Replica, cells, clear_of_window_end, fetch_all, get  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402
from backdrop_server import free_port  # noqa: E402
from checks import check, finish, run_part  # noqa: E402
import router_flood  # noqa: E402

DEADLINE = 8.0
SIZE = "width=320&height=568"
# Each part but nginx's counts per cell and 15-minute window (b: calls per hour); each ends well within a minute here
# (the longest, (d), in about 20 s), so each starts with at least a minute of its window left.
PART_SECONDS = 60



def photo_of(answer):
    return answer[1].get("X-Backdrop-Photo-Id"), answer[1].get("X-Backdrop-Source")


def start_up_refusals(binary, db, flickr, work):
    print("start-up refusals")
    newer = "backdrop_newer"
    db.psql(f"CREATE DATABASE {newer} OWNER backdrop", database="postgres")
    db.psql("CREATE TABLE backdrop_schema (version integer NOT NULL, applied timestamptz NOT NULL DEFAULT now());"
            "INSERT INTO backdrop_schema (version) VALUES (99); ALTER TABLE backdrop_schema OWNER TO backdrop", database=newer)
    cases = [
        ("a malformed URL", "postgres://backdrop:SECRETWORD@/backdrop", "names no host"),
        ("a wrong password", db.url.replace(db.password, "SECRETWORD"), "refused the login"),
        ("an unknown database", db.url.replace("/backdrop?", "/nosuchdb?"), "no database \"nosuchdb\""),
        ("a schema from a newer Backdrop", db.url.replace("/backdrop?", f"/{newer}?"), "schema version 99"),
    ]
    for name, url, expected in cases:
        replica = Replica(binary, flickr, url, work, "refused")
        path = os.path.join(work, "config-refused.json")
        with open(path, "w") as f:
            json.dump(replica.config(), f)
        result = subprocess.run([binary, "serve", "--config", path], env=dict(os.environ, FLICKR_API_KEY="k"),
                                capture_output=True, text=True, timeout=60)
        output = result.stdout + result.stderr
        check(f"{name}: exit 2 naming cluster.postgresURL, password masked",
              result.returncode == 2 and "cluster.postgresURL" in result.stderr and expected in result.stderr
              and "SECRETWORD" not in output and db.password not in output,
              f"exit {result.returncode}: {result.stderr.strip()[:200]}")


def shared_searches(replicas, flickr):
    print("(a) one search per cell and window across replicas")
    names = cells("u0b", 10)
    before = flickr.searches()
    urls = [f"{replicas[i % 3].base}/background?cell={names[i % 10]}&{SIZE}" for i in range(300)]
    answers = fetch_all(urls, workers=60)
    check("300 concurrent requests: all 200", all(a[0] == 200 for a in answers),
          f"statuses {sorted(set(a[0] for a in answers))}")
    searches = flickr.searches() - before
    check("exactly 10 Flickr searches for 10 new cells over 3 replicas", searches == 10, f"{searches} searches")
    by_cell = {}
    for i, answer in enumerate(answers):
        by_cell.setdefault(names[i % 10], set()).add(photo_of(answer))
    agreed = all(len(photos) == 1 and next(iter(photos))[1] == "flickr" for photos in by_cell.values())
    check("every replica serves each cell the same Flickr photo", agreed,
          "; ".join(f"{c}: {sorted(p)}" for c, p in by_cell.items() if len(p) != 1)[:300])
    shared = sum(r.metric('backdrop_cluster_cells_total{outcome="shared"}') or 0 for r in replicas)
    check("the other replicas took the searching replica's result", shared >= 10, f"{shared:.0f} shared lookups")

    # A replica restarted with an empty cache serves the same photos, from the database, without searching.
    restarted = replicas[2]
    restarted.stop()
    shutil.rmtree(os.path.join(restarted.work, f"cache-{restarted.name}"), ignore_errors=True)
    restarted.start()
    before = flickr.searches()
    again = [get(f"{restarted.base}/background?cell={cell}&{SIZE}") for cell in names]
    same = all(a[0] == 200 and {photo_of(a)} == by_cell[cell] for a, cell in zip(again, names))
    check("a replica restarted with an empty cache serves the same photos without a search",
          same and flickr.searches() == before, f"{flickr.searches() - before} searches")


def compose_file():
    print("deploy/compose.yaml")
    import yaml
    with open(os.path.join(ROOT, "deploy", "compose.yaml")) as f:
        compose = yaml.safe_load(f)
    with open(os.path.join(ROOT, "deploy", "nginx.conf")) as f:
        upstreams = set(re.findall(r"server (backdrop-\d+):8080", f.read()))
    services = compose.get("services", {})
    replicas = sorted(name for name in services if name.startswith("backdrop-"))
    check("three replicas, each named in nginx.conf", replicas == ["backdrop-1", "backdrop-2", "backdrop-3"]
          and upstreams == set(replicas), f"{replicas} vs nginx {sorted(upstreams)}")
    ok = all(services[r].get("build") == ".." and "@postgres:5432/" in services[r]["environment"]["BACKDROP_POSTGRES_URL"]
             and services[r]["volumes"] == [f"cache-{r[-1]}:/app/cache"] for r in replicas)
    check("each built from the Dockerfile, given the database's URL and its own cache volume", ok)
    check("PostgreSQL and nginx (with ./nginx.conf) beside them", "postgres" in services
          and "./nginx.conf:/etc/nginx/nginx.conf:ro" in services.get("nginx", {}).get("volumes", []))
    nginx_address = services.get("nginx", {}).get("networks", {}).get("backdrop", {}).get("ipv4_address")
    subnet = compose.get("networks", {}).get("backdrop", {}).get("ipam", {}).get("config", [{}])[0].get("subnet", "")
    check("every replica trusts nginx's fixed address, and only it, to say who the client is (BACKDROP_TRUSTED_PROXIES)",
          nginx_address and ipaddress.ip_address(nginx_address) in ipaddress.ip_network(subnet)
          and all(services[r]["environment"].get("BACKDROP_TRUSTED_PROXIES") == nginx_address for r in replicas), f"{nginx_address} in {subnet}")
    check("Jaeger only under the tracing profile, and every replica given OTEL_EXPORTER_OTLP_ENDPOINT (empty: tracing off)",
          services.get("jaeger", {}).get("profiles") == ["tracing"]
          and all(services[r]["environment"].get("OTEL_EXPORTER_OTLP_ENDPOINT") == "${OTEL_EXPORTER_OTLP_ENDPOINT:-}" for r in replicas))


def nginx_routing(replicas, work):
    print("nginx (deploy/nginx.conf) in front of the replicas")
    with open(os.path.join(ROOT, "deploy", "nginx.conf")) as f:
        conf = f.read()
    for i, replica in enumerate(replicas):
        conf = conf.replace(f"backdrop-{i + 1}:8080", f"127.0.0.1:{replica.port}")
    port = free_port()
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("worker_processes auto;", f"worker_processes 1;\npid {work}/nginx.pid;\nerror_log {work}/nginx-error.log;")
    conf = conf.replace("http {", f"http {{\n    access_log off;\n    client_body_temp_path {work}/nginx-body;\n"
                        f"    proxy_temp_path {work}/nginx-proxy;", 1)
    check("the configuration names three replicas, by cell hash and round-robin",
          conf.count("127.0.0.1:") == 7 and "hash $arg_cell consistent" in conf)
    path = os.path.join(work, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    nginx = subprocess.Popen(["nginx", "-c", path, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while get(base + "/health", timeout=1)[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.1)  # waiting for nginx to listen, bounded
        served = 'backdrop_requests_total{route="/background",status="200"}'

        def counts():
            return [r.metric(served) or 0 for r in replicas]

        for cell in cells("u1b", 3):
            before = counts()
            answers = [get(f"{base}/background?cell={cell}&{SIZE}") for _ in range(9)]
            moved = [after - b for after, b in zip(counts(), before)]
            check(f"cell {cell}: 9 requests through nginx all reach one replica",
                  all(a[0] == 200 for a in answers) and sorted(moved) == [0, 0, 9], f"per replica {moved}")
        before = counts()
        answers = [get(f"{base}/background?lat=48.85{i}&lon=2.35&{SIZE}") for i in range(9)]
        moved = [after - b for after, b in zip(counts(), before)]
        check("9 coordinate requests through nginx go round-robin", all(a[0] == 200 for a in answers) and moved == [3, 3, 3],
              f"per replica {moved}")
        for flooder, bystander, forge, what in [("127.0.0.2", "127.0.0.3", None, "one client"),
                                                 ("127.0.0.4", "127.0.0.5", "headers", "one client forging X-Real-IP and X-Forwarded-For")]:
            refused, statuses, answers = router_flood.bystander_under_flood("127.0.0.1", port, flooder, bystander, cells("u1c", 1)[0], forge=forge)
            check(f"{what} flooding new renders through nginx is refused", refused, str(statuses))
            check("while it floods, a bystander's /health, cached image, script, JSON and own render are all 200 (no 502, no refusal)",
                  all(status == 200 for _, status in answers), f"{router_flood.summary(answers)}; flood {statuses}")
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)


def shared_budget(binary, flickr, db, work):
    print("(b) one budget for the key across replicas")
    replicas = [Replica(binary, flickr, db.url, work, f"budget-{i}", api_key="budget-test-key", settings={"flickr": {"callsPerHour": 12}},
                        environment={"BACKDROP_TRUSTED_PROXIES": "127.0.0.1"}).start() for i in range(3)]
    try:
        before = flickr.searches()
        names = cells("u2b", 40)
        # 40 clients of 40 networks (each client's share of new cells is a tenth of the budget: the budget must bind).
        answers = router_flood.concurrent(lambda n: get(f"{replicas[n % 3].base}/background?cell={names[n]}&{SIZE}", timeout=60,
                                                        headers={"X-Real-IP": f"10.{n}.0.1"}), 40, threads=20)
        calls = flickr.searches() - before
        check("40 new cells, budget 12 an hour: at most 12 Flickr calls in all", 0 < calls <= 12, f"{calls} calls")
        check("every answer a 200", all(a[0] == 200 for a in answers), f"statuses {sorted(set(a[0] for a in answers))}")
        sources = [photo_of(a)[1] for a in answers]
        check("cells past the budget get stock photos", sources.count("stock") >= 28, f"{sources.count('stock')} stock")
        gauges = [r.metric('backdrop_source_budget_tokens{source="flickr"}') for r in replicas]
        check("/metrics shows the shared budget spent", None not in gauges and min(gauges) == 0, f"tokens left {gauges}")
    finally:
        for replica in replicas:
            replica.stop()


def database_failing(replicas, flickr, db):
    print("(c) PostgreSQL stopped, then frozen, then back")
    stop_requests = threading.Event()
    answers = []
    names = cells("u3b", 200)

    def traffic():
        i = 0
        while not stop_requests.is_set():
            i += 1
            replica = replicas[i % 3]
            answers.append(get(f"{replica.base}/background?cell={names[i % 200]}&{SIZE}", timeout=60))

    threads = [threading.Thread(target=traffic) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        until = time.monotonic() + 60
        while len(answers) < 20 and time.monotonic() < until:
            time.sleep(0.05)  # let traffic run with the database up, bounded
        check("traffic runs with the database up", len(answers) >= 20, f"{len(answers)} answers in 60 s")
        # Rows of a window long over and budget slots from days ago: the clean-up after reconnecting deletes them.
        db.psql("INSERT INTO backdrop_cells (key_hash, cell, window_index, state, updated) VALUES ('old', 'zzzzz', 1, 'done', now());"
                "INSERT INTO backdrop_calls (key_hash, minute, calls) VALUES ('old', 1, 1)")
        db.stop("fast")
        degraded = all(r.wait_for_cluster("degraded", 15) for r in replicas)
        check("PostgreSQL stopped: /health says degraded on every replica", degraded,
              str([r.health().get("cluster") for r in replicas]))
        connected = [r.metric("backdrop_cluster_connected") for r in replicas]
        check("and backdrop_cluster_connected is 0 on every replica", connected == [0, 0, 0], str(connected))
        codes = [health_command(r, "--require-shared") for r in replicas] + [health_command(replicas[0])]
        check("backdrop health --require-shared fails on a degraded replica (the plain check still passes)", codes == [1, 1, 1, 0], str(codes))
        mark = len(answers)
        until = time.monotonic() + 60
        while len(answers) < mark + 40 and time.monotonic() < until:
            time.sleep(0.05)  # traffic with the database stopped, bounded
    finally:
        stop_requests.set()
        for thread in threads:
            thread.join(90)
    # The promise: a request waits on the database at most cluster.timeoutSeconds (1 s here) in all; 3 s more for the
    # search on the stand-in, the render and scheduling on a loaded machine (as with it frozen, below).
    slow = [a for a in answers if a[0] != 200 or a[3] > 1.0 + 3]
    check("every request a 200 within cluster.timeoutSeconds (plus 3 s for its own work) while it stops", not slow and len(answers) >= 60,
          f"{len(answers)} requests, {len(slow)} bad: {[(a[0], round(a[3], 2)) for a in slow[:5]]}")
    operations = ["connect", "budget", "share", "share_return", "claim", "publish", "read", "publish_looks", "fail", "reject_key", "cleanup"]
    errors = {op: sum(r.metric(f'backdrop_cluster_database_errors_total{{operation="{op}"}}') or 0 for r in replicas) for op in operations}
    check("/metrics counts the database errors: every replica's failed queries, and its failed tries to reach it again",
          sum(errors.values()) >= 3 and errors["connect"] >= 1, str({op: int(n) for op, n in errors.items() if n}))

    db.start()
    back = all(r.wait_for_cluster("postgres", 20) for r in replicas)
    check("PostgreSQL back: every replica shares again within the retry delay", back,
          str([r.health().get("cluster") for r in replicas]))
    connected = [r.metric("backdrop_cluster_connected") for r in replicas]
    check("and backdrop_cluster_connected is 1 on every replica", connected == [1, 1, 1], str(connected))
    codes = [health_command(r, "--require-shared") for r in replicas]
    check("and backdrop health --require-shared passes again", codes == [0, 0, 0], str(codes))
    deadline = time.monotonic() + 10
    leftovers = db.psql("SELECT count(*) FROM backdrop_cells WHERE key_hash = 'old'") + db.psql("SELECT count(*) FROM backdrop_calls WHERE key_hash = 'old'")
    while leftovers != "00" and time.monotonic() < deadline:
        time.sleep(0.1)  # the clean-up runs on reconnecting; bounded
        leftovers = db.psql("SELECT count(*) FROM backdrop_cells WHERE key_hash = 'old'") + db.psql("SELECT count(*) FROM backdrop_calls WHERE key_hash = 'old'")
    current = int(db.psql("SELECT count(*) FROM backdrop_cells"))
    check("expired cell-windows and budget slots are deleted in the background, current ones kept", leftovers == "00" and current >= 10,
          f"leftovers {leftovers}, current rows {current}")
    before = flickr.searches()
    names = cells("u4b", 5)
    answers = fetch_all([f"{replicas[i % 3].base}/background?cell={names[i % 5]}&{SIZE}" for i in range(30)], workers=30)
    searches = flickr.searches() - before
    check("after the restart: one search per new cell again", searches == 5 and all(a[0] == 200 for a in answers),
          f"{searches} searches")

    # Frozen: the server accepts nothing and answers nothing (SIGSTOP on every PostgreSQL process).
    with open(os.path.join(db.data, "postmaster.pid")) as f:
        postmaster = int(f.readline())
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
    frozen = [postmaster] + [int(pid) for pid in children]
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        names = cells("u5b", 6)
        answers = fetch_all([f"{replicas[i % 3].base}/background?cell={names[i]}&{SIZE}" for i in range(6)], workers=6)
        timeout = 1.0
        slow = [round(a[3], 2) for a in answers if a[0] != 200 or a[3] > timeout + 3]
        check("PostgreSQL frozen: every request a 200, waiting at most cluster.timeoutSeconds on it",
              not slow, f"times {[round(a[3], 2) for a in answers]}")
        degraded = all(r.wait_for_cluster("degraded", 10) for r in replicas)
        check("PostgreSQL frozen: /health says degraded", degraded, str([r.health().get("cluster") for r in replicas]))
        timed = [get(f"{replicas[i].base}/background?cell={cells('u6b', 3)[i]}&{SIZE}") for i in range(3)]
        check("once degraded, requests do not wait on the database at all",
              all(a[0] == 200 and a[3] < timeout for a in timed), f"times {[round(a[3], 2) for a in timed]}")
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    back = all(r.wait_for_cluster("postgres", 25) for r in replicas)
    check("PostgreSQL thawed: every replica shares again", back, str([r.health().get("cluster") for r in replicas]))


def health_command(replica, *flags):
    """The exit code of `backdrop health` (as a Kubernetes exec probe runs it) against `replica`."""
    return subprocess.run([replica.binary, "health", "--url", replica.base + "/health", *flags], capture_output=True, timeout=30).returncode


def takeover_at_defaults(binary, flickr, db, work):
    print("(d) a replica killed while holding a cell's lease, at the default lease and deadline, with traffic all along")
    # At "info", each replica logs every request with its status and time: what a late answer's replica did with it.
    settings = {"cluster": {"timeoutSeconds": 1}, "server": {"logLevel": "info"}}
    replicas = [Replica(binary, flickr, db.url, work, f"defaults-{i}", settings=settings).start() for i in range(3)]
    victim, others = replicas[0], replicas[1:]
    try:
        cell = cells("u7c", 1)[0]
        url = f"/background?cell={cell}&{SIZE}"
        flickr.hang(True)
        before = flickr.searches()
        threading.Thread(target=get, args=(victim.base + url,), kwargs={"timeout": 60}, daemon=True).start()
        deadline = time.monotonic() + 20
        while flickr.searches() == before and time.monotonic() < deadline:
            time.sleep(0.02)  # until the victim's search reaches Flickr (it holds the lease from just before), bounded
        claimed = time.monotonic()
        check("the victim claimed the cell and searches it (Flickr hanging)", flickr.searches() == before + 1)
        answers, lock, stop = [], threading.Lock(), threading.Event()
        searched_again = []

        def client(replica):
            while not stop.is_set():
                sent = time.monotonic()
                status, headers, _, seconds = get(replica.base + url, timeout=30)
                with lock:
                    answers.append((sent - claimed, status, headers.get("X-Backdrop-Source"), seconds))
                time.sleep(0.25)  # a request every quarter second from each of four clients, as steady traffic

        threads = [threading.Thread(target=client, args=(r,), daemon=True) for r in others for _ in range(2)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # not synchronisation: traffic reaches the others while the victim still lives
        victim.stop(kill=True)
        flickr.hang(False)
        end = claimed + 30
        while time.monotonic() < end and not searched_again:
            if flickr.searches() > before + 1:
                searched_again.append(time.monotonic() - claimed)
            time.sleep(0.02)
        served = None
        while time.monotonic() < end and served is None:
            with lock:
                served = next((a[0] + a[3] for a in answers if a[2] == "flickr"), None)
            time.sleep(0.05)
        stop.set()
        for thread in threads:
            thread.join(35)
        takeover = searched_again[0] if searched_again else None
        check("another replica searches the cell within the lease plus one second of the claim (16 s)",
              takeover is not None and takeover <= 16, f"{takeover:.2f} s" if takeover else "never")
        check("and serves it a Flickr photo soon after (not held on stock)", served is not None and served <= 17,
              f"{served:.2f} s" if served else "never")
        took_over = sum(r.metric('backdrop_cluster_lease_waits_total{outcome="took_over"}') or 0 for r in others)
        waits = sum(r.metric("backdrop_cluster_lease_wait_seconds_count") or 0 for r in others)
        longest = max((r.metric("backdrop_cluster_lease_wait_seconds_sum") or 0) for r in others)
        check("a replica that waited out the dead replica's lease counts it as taken over, with the wait's length",
              took_over >= 1 and waits >= 1 and longest >= 10, f"{took_over:.0f} taken over, {waits:.0f} waits timed, {longest:.1f} s")
        late = [a for a in answers if a[1] != 200 or a[3] > 10 + 1.5]
        if not check("every answer meanwhile is a 200 within the 10-s deadline (1.5 s margin for scheduling)",
                     len(answers) > 20 and not late, f"{len(answers)} answers, {late[:3]}"):
            for replica in others:  # what the replicas logged besides quick answers, for the failure's reader
                with open(os.path.join(work, f"replica-{replica.name}.log")) as log:
                    lines = [line for line in log if not re.search(r"status=200 .*\] request$", line.strip())
                             or float(re.search(r"ms=([0-9.]+)", line).group(1)) > 10_000]
                print(f"    replica {replica.name} ({replica.base}), {len(lines)} lines:", *(line.rstrip() for line in lines[-40:]), sep="\n      ")
    finally:
        flickr.hang(False)
        for replica in replicas:
            replica.stop()


def shared_discoveries(binary, flickr, db, work):
    print("(e) a failing cell, an empty cell and a rejected key, learned by one replica, reach the other")
    # A key of their own: its rejection (kept a minute in the database) touches no other check.
    replicas = [Replica(binary, flickr, db.url, work, f"learn-{i}", api_key="cluster-learning-key").start() for i in range(2)]
    first, other = replicas
    try:
        for mode, outcome, prefix in [("failing", "failing", "u8b"), ("empty", "shared", "u8c")]:
            flickr.mode(mode)
            cell = cells(prefix, 1)[0]
            before = flickr.searches()
            answer = get(f"{first.base}/background?cell={cell}&{SIZE}")
            searched = flickr.searches() - before
            seen = other.metric(f'backdrop_cluster_cells_total{{outcome="{outcome}"}}') or 0
            again = get(f"{other.base}/background?cell={cell}&{SIZE}")
            read = (other.metric(f'backdrop_cluster_cells_total{{outcome="{outcome}"}}') or 0) - seen
            check(f"{'an' if mode[0] in 'aeiou' else 'a'} {mode} cell: the other replica serves stock without a search of its own, having read it ({outcome})",
                  answer[0] == 200 and again[0] == 200 and photo_of(again)[1] == "stock" and searched >= 1
                  and flickr.searches() - before == searched and read == 1,
                  f"searches {searched} then {flickr.searches() - before - searched}, read {read:.0f}, sources {photo_of(answer)[1]}/{photo_of(again)[1]}")
            flickr.mode("normal")
        flickr.mode("rejected")
        one, two = cells("u8d", 2)
        before = flickr.searches()
        answer = get(f"{first.base}/background?cell={one}&{SIZE}")
        searched = flickr.searches() - before
        again = get(f"{other.base}/background?cell={two}&{SIZE}")
        read = other.metric('backdrop_cluster_cells_total{outcome="key_rejected"}') or 0
        check("a rejected key: the other replica calls Flickr for no cell for a while, having read it (key_rejected)",
              answer[0] == 200 and again[0] == 200 and photo_of(again)[1] == "stock" and searched == 1
              and flickr.searches() - before == 1 and read == 1,
              f"searches {searched} then {flickr.searches() - before - searched}, read {read:.0f}")
    finally:
        flickr.mode("normal")
        for replica in replicas:
            replica.stop()


def shared_commons(binary, flickr, db, work):
    print("(f) Wikimedia Commons, keyless: one search per cell between three replicas, the same photo everywhere")
    base = f"http://localhost:{flickr.port}"
    settings = {"commons": {"endpoint": f"{base}/w/api.php", "extraImageHosts": ["localhost"], "userAgent": "Backdrop cluster check (ops@example.org)"}}
    environment = {"BACKDROP_PHOTO_SOURCES": "commons,stock"}
    replicas = [Replica(binary, flickr, db.url, work, f"commons-{i}", api_key="", settings=settings, environment=environment).start()
                for i in range(3)]
    try:
        names = cells("u0c", 5)
        before, looks_before = flickr.stats()["commons_geosearches"], flickr.stats()["commons_looks"]
        calls_before = flickr.stats()["commons_searches"]
        answers = fetch_all([f"{replicas[i % 3].base}/background?cell={names[i % 5]}&{SIZE}" for i in range(60)], workers=30)
        searches = flickr.stats()["commons_geosearches"] - before
        calls = flickr.stats()["commons_searches"] - calls_before
        by_cell = {}
        for i, answer in enumerate(answers):
            by_cell.setdefault(names[i % 5], set()).add(photo_of(answer))
        check("60 concurrent requests for 5 new cells over 3 replicas: all 200, all Commons photos",
              all(a[0] == 200 for a in answers) and all(p[1] == "commons" for photos in by_cell.values() for p in photos),
              f"statuses {sorted(set(a[0] for a in answers))}, sources {sorted(set(p[1] for ps in by_cell.values() for p in ps))}")
        # The stand-in's places have no assessed files: each search is three calls (the cell's reach, 10 km, the nearest).
        check("exactly 5 Commons searches between them, 15 calls (each cell's list shared through the database for the day)",
              searches == 5 and calls == 15, f"{searches} searches, {calls} calls")
        check("every replica serves each cell the same Commons photo", all(len(photos) == 1 for photos in by_cell.values()),
              "; ".join(f"{c}: {sorted(p)}" for c, p in by_cell.items() if len(p) != 1)[:300])
        # The looks come after the answers (issue 58, part 1): the replica that searched publishes them, replacing results
        # that waited for them, once per cell; the rows say so, with a window from which they count.
        looked = "SELECT count(*) FROM backdrop_cells WHERE cell LIKE 'commons/%' AND result->>'looksPending' = 'false'"
        published = router_flood.wait_until(lambda: db.psql(looked) == "5", 60)
        counted = db.psql("SELECT count(*) FROM backdrop_cells, jsonb_array_elements(result->'candidates') c WHERE cell LIKE 'commons/%' "
                          "AND c->'facts' ? 'look' AND (c->'facts'->>'lookFrom')::bigint > 0")
        fetched = flickr.stats()["commons_looks"] - looks_before
        check("each cell's looks came after its answers, fetched by one replica and published once, with the window they count from",
              published and int(counted or 0) >= 5 and fetched == int(counted or 0),
              f"cells with looks {db.psql(looked)}, candidates with looks {counted}, thumbnails fetched {fetched}")
    finally:
        for replica in replicas:
            replica.stop()


def client_shares(binary, flickr, db, work):
    print("(g) a client's share of new cells, reserved in the database: through two replicas at once, no more than its tenth")
    base = f"http://localhost:{flickr.port}"
    settings = {"commons": {"endpoint": f"{base}/w/api.php", "extraImageHosts": ["localhost"], "callsPerHour": 20,
                            "userAgent": "Backdrop cluster check (ops@example.org)"}}
    environment = {"BACKDROP_PHOTO_SOURCES": "commons,stock", "BACKDROP_TRUSTED_PROXIES": "127.0.0.1"}
    replicas = [Replica(binary, flickr, db.url, work, f"shares-{i}", api_key="", settings=settings, environment=environment).start()
                for i in range(2)]
    try:
        def ask(replica, cell, client):
            return get(f"{replica.base}/background?cell={cell}&{SIZE}", headers={"X-Real-IP": client})
        names = cells("u0f", 16)
        # A new hour for the Commons budget: (f)'s 15 calls would otherwise leave this one 5 of its 20, and the budget,
        # not the shares, would bite.
        db.psql("DELETE FROM backdrop_calls")
        before = flickr.stats()["commons_geosearches"]
        burst = []
        threads = [threading.Thread(target=lambda i=i: burst.append(ask(replicas[i % 2], names[i], "203.0.113.7"))) for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        searched = flickr.stats()["commons_geosearches"] - before
        # A share reserves a cell's first call; the cell's later calls (three in all where no file is assessed) are
        # counted against it, never refused: so 2 cells are searched.
        check("12 new cells at once from one client through two replicas: all answered, 2 searched (a tenth of 20 calls)",
              len(burst) == 12 and all(a[0] == 200 for a in burst) and searched == 2, f"{len(burst)} answers, {searched} searches")
        ask(replicas[1], names[12], "203.0.113.99")
        neighbour = flickr.stats()["commons_geosearches"] - before
        ask(replicas[0], names[13], "198.51.100.7")
        other = flickr.stats()["commons_geosearches"] - before
        check("a neighbour in the same /24 is the same client; another network's new cell is still searched",
              neighbour == 2 and other == 3, f"searches {neighbour} then {other}")
    finally:
        for replica in replicas:
            replica.stop()


def main():
    binary = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="backdrop-cluster-")
    os.chmod(work, 0o755)
    replicas = []
    try:
        with FlickrStandIn() as flickr, PostgresServer() as db:
            compose_file()
            start_up_refusals(binary, db, flickr, work)
            settings = {"cluster": {"timeoutSeconds": 1}, "photos": {"requestDeadlineSeconds": DEADLINE}}
            # As compose.yaml gives them BACKDROP_TRUSTED_PROXIES (nginx's fixed address): here nginx is 127.0.0.1.
            trust = {"BACKDROP_TRUSTED_PROXIES": "127.0.0.1"}
            replicas = [Replica(binary, flickr, db.url, work, str(i), settings=settings, environment=trust).start() for i in range(3)]
            check("/health says postgres on every replica", all(r.health().get("cluster") == "postgres" for r in replicas))
            for part, args in [(shared_searches, (replicas, flickr)), (nginx_routing, (replicas, work)),
                               (shared_budget, (binary, flickr, db, work)), (database_failing, (replicas, flickr, db)),
                               (takeover_at_defaults, (binary, flickr, db, work)), (shared_discoveries, (binary, flickr, db, work)),
                               (shared_commons, (binary, flickr, db, work)), (client_shares, (binary, flickr, db, work))]:
                if part is not nginx_routing:  # each other part counts searches per cell-window (or calls per hour)
                    clear_of_window_end(PART_SECONDS)
                run_part(part, *args)
            logs = {f: open(os.path.join(work, f)).read() for f in os.listdir(work) if f.endswith(".log")}
            check("the password appears in no log", not any(db.password in t or "SECRETWORD" in t for t in logs.values()))
            outages = [len(re.findall(r"PostgreSQL cannot be reached", logs[f"replica-{i}.log"])) for i in range(3)]
            check("each replica logged each of the two outages once", outages == [2, 2, 2], f"lines per replica {outages}")
    except Exception as error:
        check("the cluster could be set up", False, f"{type(error).__name__}: {error}")
    finally:
        for replica in replicas:
            replica.stop()
        shutil.rmtree(work, ignore_errors=True)
    finish("cluster")


if __name__ == "__main__":
    main()
