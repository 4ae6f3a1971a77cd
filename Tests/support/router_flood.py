"""One client flooding through a router while a bystander uses the service: what the routers' checks run (compose's
deploy/nginx.conf in Tests/cluster, the Kubernetes router in Tests/kubernetes), and the direct checks of who a client is.

    figures = bystander_under_flood("127.0.0.1", port, flooder="127.0.0.2", bystander="127.0.0.3", warm_cell=cell)

The flood asks for distinct large AVIF renders of the stock photo (about a quarter of a second each) (no location, so no upstream call) over 30 connections (within the routers' 32 per address)
from one source address, optionally with forged X-Real-IP and X-Forwarded-For headers, or forged addresses from one
IPv6 /64 in X-Real-IP (for a replica that trusts the caller as its proxy). The bystander, from another address,
asks in turn for /health, a cached cell image, /backdrop.js, /background.json and a render of its own.
"""
import http.client
import random
import threading
import time


def request(host, port, path, source, headers=None, timeout=30):
    """(status, headers with lower-case names, body length, seconds) of one GET on a fresh connection from `source`;
    status 0 when the connection failed (the error in headers["error"])."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, len(body), time.monotonic() - started
    except (OSError, http.client.HTTPException) as error:
        return 0, {"error": str(error)}, 0, time.monotonic() - started
    finally:
        connection.close()


def wait_until(condition, seconds):
    """Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


class Flood:
    """Distinct large renders from `source` over `connections` connections until ended; `forge` is None, "headers"
    (a random X-Real-IP and X-Forwarded-For each request) or "ipv6" (a random address of 2001:db8:1:2::/64 in
    X-Real-IP each request, as a router in front would name a client of that /64)."""

    def __init__(self, host, port, source, forge=None, connections=32, seed=7):
        self.counts = {}
        self.lock, self.stop = threading.Lock(), threading.Event()
        self.host, self.port, self.source, self.forge = host, port, source, forge
        self.threads = [threading.Thread(target=self.run, args=(seed * 1000 + n,), daemon=True) for n in range(connections)]
        for thread in self.threads:
            thread.start()

    def run(self, seed):
        rng = random.Random(seed)
        connection = None  # kept alive between requests: thousands of fresh connections would use up the source's ports
        while not self.stop.is_set():
            # Near the API's 4-megapixel limit, so that fifteen or more of them queued at a one-thread replica wait past
            # its 1-s budget on any machine (at 1,400 to 2,000 a side, a fast run could render them all in time).
            width, height = rng.randrange(1750, 2000), rng.randrange(1750, 2000)
            headers = {}
            if self.forge == "headers":
                headers = {"X-Real-IP": f"198.51.{rng.randrange(256)}.{rng.randrange(1, 255)}",
                           "X-Forwarded-For": f"203.0.{rng.randrange(256)}.{rng.randrange(1, 255)}"}
            elif self.forge == "ipv6":
                headers = {"X-Real-IP": "2001:db8:1:2:" + ":".join(f"{rng.randrange(65536):x}" for _ in range(4))}
            try:
                connection = connection or http.client.HTTPConnection(self.host, self.port, timeout=30, source_address=(self.source, 0))
                connection.request("GET", f"/background?width={width}&height={height}&blur=0.5&format=avif", headers=headers)
                response = connection.getresponse()
                response.read()
                status = response.status
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                status = 0
                if connection:
                    connection.close()
                connection = None
            with self.lock:
                self.counts[status] = self.counts.get(status, 0) + 1
        if connection:
            connection.close()

    def refused(self):
        with self.lock:
            return self.counts.get(503, 0) + self.counts.get(429, 0)

    def end(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(40)
        return dict(sorted(self.counts.items()))


def bystander_under_flood(host, port, flooder, bystander, warm_cell, forge=None, bystander_headers=None, rounds=4):
    """Floods from `flooder` until it is refused 20 times (bounded to 40 s), then the bystander asks its five kinds of
    request `rounds` times while the flood goes on. Returns (whether the flood met a limit at all: a 503 or a 429, each
    of which the old routers counted as a replica's failure; the flood's statuses; the bystander's answers as
    (path, status))."""
    warm = f"/background?cell={warm_cell}&blur=1&format=jpeg"
    request(host, port, warm, bystander, bystander_headers)  # cached before the flood starts
    flood = Flood(host, port, flooder, forge, seed=int(flooder.split(".")[-1]))  # each flooder its own sizes: none cached
    wait_until(lambda: flood.refused() >= 20, 40)
    answers = []
    rng = random.Random(424242)
    try:
        for _ in range(rounds):
            own = f"/background?lat={rng.uniform(-50, 50):.4f}&lon={rng.uniform(-150, 150):.4f}&width=320&height=568&format=jpeg"
            for path in ["/health", warm, "/backdrop.js", f"/background.json?cell={warm_cell}", own]:
                status = request(host, port, path, bystander, bystander_headers)[0]
                answers.append((path.split("?")[0] + ("?cell" if "cell=" in path else ""), status))
    finally:
        statuses = flood.end()
    return flood.refused() > 0, statuses, answers


def summary(answers):
    """`N of M 200` and the other statuses seen, by kind of request."""
    bad = [f"{path} {status}" for path, status in answers if status != 200]
    return f"{len(answers) - len(bad)} of {len(answers)} answered 200" + (f"; not: {', '.join(bad[:8])}" if bad else "")


def concurrent(call, count, threads=None, settle=None, release=None):
    """`call(n)` for n in 0..<count on `threads` threads (one each by default). With `release`, waits (bounded, 20 s)
    until `settle(results so far)` holds, then sets `release` so that held requests end. Returns the results in order."""
    results = [None] * count
    queue = list(range(count))
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                if not queue:
                    return
                n = queue.pop()
            results[n] = call(n)

    workers = [threading.Thread(target=work, daemon=True) for _ in range(threads or count)]
    for worker in workers:
        worker.start()
    if release is not None:
        wait_until(lambda: settle(results), 20)
        release.set()
    for worker in workers:
        worker.join(40)
    return results
