"""Backdrop replicas on 127.0.0.1 sharing one PostgreSQL and one stand-in Flickr, for the cluster checks and benchmark.

    with FlickrStandIn() as flickr, PostgresServer() as db:
        replicas = [Replica(binary, flickr, db.url, work) for _ in range(3)]
        for replica in replicas: replica.start()
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import PHOTO, free_port, metric  # noqa: E402
import router_flood  # noqa: E402


GEOHASH = "0123456789bcdefghjkmnpqrstuvwxyz"


def cells(prefix, count):
    """`count` geohash cells of precision 5 starting with the 3 characters `prefix`."""
    return [prefix + GEOHASH[i // 32] + GEOHASH[i % 32] for i in range(count)]


def clear_of_window_end(needed, window=900):
    """Returns once at least `needed` seconds are left of the current 15-minute window (waiting for the next one when
    fewer are, at most `needed` seconds): a check that counts searches per cell and window, or calls per hour, must not
    straddle two windows, where every cell is new again. The wait is on the clock the replicas read, not on them."""
    left = window - time.time() % window
    if left < needed:
        print(f"  (waiting {left:.1f} s for the next {window // 60}-minute window: the checks that follow count per window)")
        time.sleep(left + 0.1)


def get(url, timeout=30, headers=None):
    """(status, headers, body, seconds) of a GET; HTTP errors are answers too, and a refused connection is status 0."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as answer:
            return answer.status, dict(answer.headers), answer.read(), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read(), time.monotonic() - started
    except Exception:  # refused, reset, timed out, or a malformed answer (http.client's errors are not all OSErrors)
        return 0, {}, b"", time.monotonic() - started


class FlickrStandIn:
    """Tests/support/flickr_standin.py as a process: counts searches per point, can be made to hang."""

    def __init__(self, photos=None):
        self.photos = photos or [PHOTO]

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "support", "flickr_standin.py"), *self.photos],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.port = int(self.process.stdout.readline().split()[1])
        self.endpoint = f"http://localhost:{self.port}/services/rest/"
        return self

    def stats(self):
        return json.loads(get(f"http://127.0.0.1:{self.port}/stats")[2])

    def searches(self):
        return self.stats()["searches"]

    def hang(self, on):
        get(f"http://127.0.0.1:{self.port}/control?hang={1 if on else 0}")

    def mode(self, mode):
        """`failing`, `empty`, `rejected` or `normal` searches (see flickr_standin.py)."""
        get(f"http://127.0.0.1:{self.port}/control?mode={mode}")

    def __exit__(self, *exc):
        self.hang(False)
        self.mode("normal")
        self.process.stdin.close()
        self.process.wait(timeout=30)
        return False


class Replica:
    """One Backdrop process; `settings` are merged into its config file section by section, `environment` into its
    environment."""

    def __init__(self, binary, flickr, postgres_url, work, name, api_key="cluster-test-key", settings=None, environment=None):
        self.binary, self.flickr, self.postgres_url, self.work, self.name = binary, flickr, postgres_url, work, name
        self.api_key = api_key
        self.settings = settings or {}
        self.environment = environment or {}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None

    def config(self):
        config = {
            "server": {"host": "127.0.0.1", "port": self.port, "publicFolder": os.path.join(ROOT, "Public"), "logLevel": "notice"},
            "photos": {"stockFolder": os.path.join(ROOT, "StockPhotos")},
            "cache": {"folder": os.path.join(self.work, f"cache-{self.name}")},
            "flickr": {"endpoint": self.flickr.endpoint, "extraImageHosts": ["localhost"]},
            "cluster": {"postgresURL": self.postgres_url},
        }
        for section, values in self.settings.items():
            config.setdefault(section, {}).update(values)
        return config

    def start(self):
        path = os.path.join(self.work, f"config-{self.name}.json")
        with open(path, "w") as f:
            json.dump(self.config(), f)
        # Tests never reach beyond loopback: Wikimedia Commons (on by default) is left out.
        env = dict(os.environ, FLICKR_API_KEY=self.api_key, BACKDROP_PHOTO_SOURCES="flickr,stock")
        env.update(self.environment)
        env.pop("BACKDROP_POSTGRES_URL", None)
        self.log = open(os.path.join(self.work, f"replica-{self.name}.log"), "a")
        self.process = subprocess.Popen([self.binary, "serve", "--config", path], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if get(self.base + "/health", timeout=1)[0] == 200:
                return self
            if self.process.poll() is not None:
                raise RuntimeError(f"replica {self.name} exited with {self.process.returncode}")
            time.sleep(0.1)  # waiting for the server to listen, bounded to 60 s
        raise RuntimeError(f"replica {self.name} did not start")

    def health(self):
        status, _, body, _ = get(self.base + "/health", timeout=5)
        return json.loads(body) if status == 200 else {}

    def metric(self, series):
        """The series' value; None when the replica does not expose it (yet)."""
        text = get(self.base + "/metrics", timeout=5)[2].decode()
        return metric(text, series) if any(line.startswith(series + " ") for line in text.splitlines()) else None

    def wait_for_cluster(self, state, seconds):
        """Polls /health until it reports `state` (bounded); returns whether it did."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.health().get("cluster") == state:
                return True
            time.sleep(0.1)
        return False

    def stop(self, kill=False):
        if self.process and self.process.poll() is None:
            (self.process.kill if kill else self.process.terminate)()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process:
            self.log.close()


def fetch_all(urls, workers=50):
    """GETs every URL with `workers` threads at once; returns the answers in order."""
    return router_flood.concurrent(lambda n: get(urls[n], timeout=60), len(urls), threads=min(workers, len(urls)))
