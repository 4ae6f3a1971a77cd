"""Starts a stand-in Flickr and a Backdrop pointed at it, both on 127.0.0.1, and stops both afterwards.

    with BackdropServer(binary) as server:
        urllib.request.urlopen(server.base + "/health")
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PHOTO = os.path.join(ROOT, "Tests", "BackdropTests", "Fixtures", "flickr-photo.jpg")


def rss_mb(pid):
    """Resident memory of process `pid`, in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def metric(text, series):
    """The value of one series (`name{label="value"}` exactly as exposed) in Prometheus text; 0 when absent."""
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        if name == series:
            return float(value)
    return 0.0


def wait_until_serving(url, name, seconds, give_up=None):
    """Returns once `url` answers, within `seconds`; else calls `give_up` (if given) and fails, naming the server."""
    for _ in range(seconds * 10):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)  # waiting for the server to listen, bounded to `seconds`
    if give_up:
        give_up()
    raise RuntimeError(f"{name} did not start")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class BackdropServer:
    def __init__(self, binary, flickr=True, log=None, photos=None, log_level="info", settings=None, environment=None, commons=False):
        """With `commons`, the stand-in's Wikimedia Commons is the photo source (no Flickr key), then stock."""
        self.environment = environment or {}
        self.commons = commons
        self.binary = binary
        self.settings = settings or {}
        self.flickr = flickr
        self.log = log
        self.photos = photos or [PHOTO]
        self.log_level = log_level
        self.processes = []

    def __enter__(self):
        self.work = tempfile.mkdtemp(prefix="backdrop-it-")
        config = {
            "server": {"host": "127.0.0.1", "port": free_port(), "publicFolder": os.path.join(ROOT, "Public"), "logLevel": self.log_level},
            "photos": {"stockFolder": os.path.join(ROOT, "StockPhotos")},
            "cache": {"folder": os.path.join(self.work, "cache")},
        }
        env = dict(os.environ)
        env.pop("FLICKR_API_KEY", None)
        # Tests never reach beyond loopback: Wikimedia Commons (on by default) is left out unless a test brings a stand-in.
        env["BACKDROP_PHOTO_SOURCES"] = "flickr,stock"
        if self.flickr or self.commons:
            standin = subprocess.Popen([sys.executable, os.path.join(HERE, "flickr_standin.py")] + self.photos,
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.processes.append(standin)
            self.flickr_port = int(standin.stdout.readline().split()[1])
            config["flickr"] = {"endpoint": f"http://localhost:{self.flickr_port}/services/rest/", "extraImageHosts": ["localhost"]}
            env["FLICKR_API_KEY"] = "integration-test-key"
        if self.commons:
            config["commons"] = {"endpoint": f"http://localhost:{self.flickr_port}/w/api.php", "extraImageHosts": ["localhost"],
                                 "userAgent": "Backdrop tests (ops@example.org)"}
            env["BACKDROP_PHOTO_SOURCES"] = "commons,stock"
            env.pop("FLICKR_API_KEY", None)
        env.update(self.environment)
        for section, values in self.settings.items():
            config.setdefault(section, {}).update(values)
        with open(os.path.join(self.work, "config.json"), "w") as f:
            json.dump(config, f)
        log = open(self.log or os.devnull, "w")
        self.processes.append(subprocess.Popen([self.binary, "serve", "--config", os.path.join(self.work, "config.json")],
                                               env=env, stdout=log, stderr=subprocess.STDOUT))
        self.base = f"http://{config['server']['host']}:{config['server']['port']}"
        self.pid = self.processes[-1].pid
        self.port = config["server"]["port"]
        wait_until_serving(self.base + "/health", "backdrop", 60, give_up=lambda: self.__exit__(None, None, None))
        return self

    def flickr_control(self, **query):
        """Drives the stand-in Flickr (`hang=1` makes searches hang until `hang=0`)."""
        args = "&".join(f"{k}={v}" for k, v in query.items())
        urllib.request.urlopen(f"http://127.0.0.1:{self.flickr_port}/control?{args}", timeout=5).read()

    def flickr_stats(self):
        return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{self.flickr_port}/stats", timeout=5).read())

    def metrics(self):
        return urllib.request.urlopen(self.base + "/metrics", timeout=10).read().decode()

    def open_descriptors(self):
        """Sockets the server process holds open."""
        count = 0
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                count += os.readlink(f"/proc/{self.pid}/fd/{fd}").startswith("socket:")
            except OSError:
                pass
        return count

    def __exit__(self, *exc):
        for process in reversed(self.processes):
            if process.stdin:
                process.stdin.close()
            else:
                process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        return False
