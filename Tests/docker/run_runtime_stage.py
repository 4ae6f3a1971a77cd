#!/usr/bin/env python3
"""Runs the Dockerfile's runtime stage for real, without a Docker engine.

usage: run_runtime_stage.py PATH/TO/release/backdrop [Dockerfile]
       run_runtime_stage.py --rootfs-only [Dockerfile]   (the cached root filesystem alone, made beside the build)

It reads the Dockerfile (nothing about the image is repeated here) and builds its last stage the way `docker build`
would: a minimal root filesystem of the stage's Debian release made by `debootstrap --variant=minbase` (cached under
.build-container/), then every instruction in order: RUN inside it (chroot, as the stage's USER at that point, with
its ENV and WORKDIR), COPY from the build context (honouring .dockerignore) and COPY --from the build stage (the
release binary given on the command line stands in for the build stage's /build/backdrop, and the Swift runtime's
libraries it links, gathered as the build stage gathers them, for /build/swift), ENV, WORKDIR, USER.

Then, in a network namespace of its own (loopback only, like a container without published ports), it runs the
ENTRYPOINT + CMD as the stage's user with the stage's environment and checks what a user of the image would meet:
/health, the demo page, a render of the asked size (and one in each other format), the HEALTHCHECK command (0 while serving, non-zero once stopped),
a render served from the cache volume after a restart (written by the unprivileged user), stock photos when
FLICKR_API_KEY is set and Flickr cannot be reached, TLS trust (a search reaches an HTTPS stand-in for api.flickr.com
only once its test CA is in the image's trust store: without it the handshake is refused), and the STOPSIGNAL letting
a request in flight finish before the process exits 0.

Needs root (chroot, mount and network namespaces); elsewhere it says so and skips.
"""
import ctypes
import datetime
import fnmatch
import http.server
import json
import os
import shutil
import signal
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

from dockerfile import env_pairs, exec_form, flags, healthcheck, instructions, linked_libraries, split, stages

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from backdrop_server import metric  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(ROOT, ".build-container")
# What Docker puts in every container's environment before the image's ENV.
DOCKER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The build stage's artefacts the test can stand in for: path in the build stage -> what to copy instead.
DEBIAN_RELEASES = {"12": "bookworm", "11": "bullseye", "13": "trixie"}
CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
STAND_IN_HOST = "api.flickr.com"
# Flickr's image host as production meets it: over HTTPS under staticflickr.com, at an address the host rule counts as
# public (TEST-NET-3, added to the namespace's loopback); and one under staticflickr.com resolving to loopback, which
# the rule must refuse. No flickr.extraImageHosts anywhere: the image's own configuration decides.
IMAGE_HOST, IMAGE_ADDRESS = "live.staticflickr.com", "203.0.113.7"
PRIVATE_IMAGE_HOST = "farm1.staticflickr.com"
PHOTO = os.path.join(ROOT, "Tests", "BackdropTests", "Fixtures", "flickr-photo.jpg")
results = {"passed": 0, "failed": 0}


def check(name, condition, detail=""):
    results["passed" if condition else "failed"] += 1
    print(f"  {'ok  ' if condition else 'FAIL'} {name}" + (f": {detail}" if detail and not condition else ""), flush=True)
    return condition


def unshare(flags_):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags_) != 0:
        raise OSError(ctypes.get_errno(), "unshare failed")


# --- building the stage ---------------------------------------------------------------------------------------------

def debian_mirror():
    """The Debian mirror apt uses on this machine (debootstrap fetches from the same place)."""
    for path in ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]:
        if os.path.exists(path):
            for line in open(path):
                words = line.split()
                if words[:1] == ["URIs:"] and words[1].rstrip("/").endswith("/debian"):
                    return words[1]
                if words[:1] == ["deb"] and words[-2:-1] and words[1].rstrip("/").endswith("/debian"):
                    return words[1]
    return "http://deb.debian.org/debian"


def base_rootfs(image):
    """A cached minbase root filesystem for FROM `debian:<release>[-slim]`."""
    name, _, tag = image.partition(":")
    release = DEBIAN_RELEASES.get(tag.split("-")[0], tag.split("-")[0])
    if name != "debian" or not release.isalpha():
        raise SystemExit(f"container: the runtime stage must start FROM debian:<release>[-slim], not {image}")
    path = os.path.join(CACHE, f"{release}-minbase")
    if not os.path.exists(os.path.join(path, "etc", "debian_version")):
        if shutil.which("debootstrap") is None:
            raise SystemExit("container: debootstrap is missing (`make test-container` installs it)")
        partial = path + ".partial"
        shutil.rmtree(partial, ignore_errors=True)
        os.makedirs(CACHE, exist_ok=True)
        print(f"  debootstrap --variant=minbase {release} (cached in {os.path.relpath(path, ROOT)})", flush=True)
        subprocess.run(["debootstrap", "--variant=minbase", release, partial, debian_mirror()], check=True,
                       stdout=subprocess.DEVNULL)
        os.rename(partial, path)
    return path


def dockerignored(relative, patterns):
    return any(fnmatch.fnmatch(relative, p.rstrip("/")) or fnmatch.fnmatch(relative.split("/")[0], p.rstrip("/"))
               for p in patterns if p and not p.startswith("!"))


def user_ids(rootfs, user):
    """(uid, gid) of USER `name`, `uid` or `uid:gid`, looked up in the image's /etc/passwd."""
    name, _, group = user.partition(":")
    for line in open(os.path.join(rootfs, "etc", "passwd")):
        fields = line.strip().split(":")
        if fields[0] == name or fields[2] == name:
            return int(fields[2]), int(group) if group.isdigit() else int(fields[3])
    if name.isdigit():
        return int(name), int(group) if group.isdigit() else int(name)
    raise SystemExit(f"container: USER {user} does not exist in the image")


class Stage:
    """The runtime stage as built: its root filesystem and the configuration its instructions left."""

    def __init__(self, rootfs):
        self.rootfs = rootfs
        self.env = {"PATH": DOCKER_PATH}
        self.workdir = "/"
        self.user = "root"
        self.entrypoint, self.cmd, self.healthcheck, self.healthcheck_options = [], [], None, {}
        self.stop_signal = "SIGTERM"
        self.volumes, self.ports = [], []

    def ids(self, user=None):
        return user_ids(self.rootfs, user or self.user)

    def inside(self, path):
        return os.path.join(self.rootfs, os.path.join(self.workdir, path).lstrip("/"))

    def spawn(self, argv, env=None, user=None, **popen):
        """`argv` started inside the image as `user` (default: the stage's USER), with the image's environment."""
        uid, gid = self.ids(user)
        rootfs, workdir = self.rootfs, self.workdir

        def enter():
            os.chroot(rootfs)
            os.chdir(workdir)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)

        environment = {"HOSTNAME": "backdrop-test", "HOME": "/root" if uid == 0 else "/", **self.env, **(env or {})}
        return subprocess.Popen(argv, env=environment, preexec_fn=enter, **popen)

    def run(self, argv, env=None, user=None, timeout=600, **popen):
        process = self.spawn(argv, env=env, user=user, **popen)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return process.returncode


def swift_runtime(binary, work):
    """A folder with the Swift runtime's libraries `binary` links, as the build stage gathers them into /build/swift
    (`ldd`, every library under a toolchain's lib/swift/linux/)."""
    folder = os.path.join(work, "swift")
    os.makedirs(folder)
    for library in linked_libraries(binary)[2]:
        shutil.copy(library, folder)
    return folder


def runtime_image(lines):
    """The image the last stage starts FROM."""
    return split(stages(lines)[-1][0])[1].split()[0]


def build(lines, binary, work):
    """Builds the last stage of the Dockerfile in `work`; returns the Stage."""
    all_stages = stages(lines)
    runtime = all_stages[-1]
    build_stage_names = {split(s[0])[1].split()[-1] for s in all_stages[:-1] if " AS " in s[0].upper()}
    artefacts = {"/build/backdrop": binary, "/build/swift": swift_runtime(binary, work)}
    base = base_rootfs(runtime_image(lines))
    rootfs = os.path.join(work, "rootfs")
    subprocess.run(["cp", "-a", base, rootfs], check=True)
    for mount in (["-t", "proc", "proc", "proc"], ["-t", "sysfs", "-o", "ro", "sysfs", "sys"]):
        subprocess.run(["mount", *mount[:-1], os.path.join(rootfs, mount[-1])], check=True)
    shutil.copy("/etc/resolv.conf", os.path.join(rootfs, "etc", "resolv.conf"))
    ignore = [line.strip() for line in open(os.path.join(ROOT, ".dockerignore"))] \
        if os.path.exists(os.path.join(ROOT, ".dockerignore")) else []
    stage = Stage(rootfs)
    for line in runtime[1:]:
        keyword, rest = split(line)
        if keyword == "RUN":
            code = stage.run(exec_form(rest), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if not check(f"RUN {rest[:70]}{'...' if len(rest) > 70 else ''}", code == 0, f"exit {code}"):
                raise SystemExit(1)
        elif keyword == "COPY":
            options, words = flags(rest)
            *sources, destination = words
            for source in sources:
                if "from" in options:
                    if options["from"] not in build_stage_names or source not in artefacts:
                        raise SystemExit(f"container: the test cannot stand in for COPY --from={options['from']} {source}")
                    origin = artefacts[source]
                else:
                    origin = os.path.join(ROOT, source)
                target = stage.inside(destination)
                if os.path.isdir(origin):
                    for folder, _, files in os.walk(origin):
                        for file in files:
                            relative = os.path.relpath(os.path.join(folder, file), ROOT)
                            if "from" not in options and dockerignored(relative, ignore):
                                continue
                            path = os.path.join(target, os.path.relpath(os.path.join(folder, file), origin))
                            os.makedirs(os.path.dirname(path), exist_ok=True)
                            shutil.copy2(os.path.join(folder, file), path)
                elif os.path.exists(origin):
                    if destination.endswith("/"):
                        target = os.path.join(target, os.path.basename(source))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copy2(origin, target)
                else:
                    check(f"COPY {source}: exists", False, "no such file in the build context")
                    raise SystemExit(1)
        elif keyword == "ENV":
            stage.env.update(env_pairs(rest))
        elif keyword == "WORKDIR":
            stage.workdir = os.path.join(stage.workdir, rest)
            os.makedirs(stage.inside("."), exist_ok=True)
        elif keyword == "USER":
            stage.user = rest
        elif keyword == "VOLUME":
            stage.volumes += exec_form(rest) if rest.startswith("[") else rest.split()
        elif keyword == "EXPOSE":
            stage.ports += [int(word.split("/")[0]) for word in rest.split()]
        elif keyword == "HEALTHCHECK":
            stage.healthcheck_options, stage.healthcheck = healthcheck(rest)
        elif keyword == "STOPSIGNAL":
            stage.stop_signal = rest if rest.startswith("SIG") or rest.isdigit() else "SIG" + rest
        elif keyword == "ENTRYPOINT":
            stage.entrypoint = exec_form(rest)
        elif keyword == "CMD":
            stage.cmd = exec_form(rest)
        elif keyword not in {"LABEL", "ARG", "SHELL"}:
            raise SystemExit(f"container: the test does not know the instruction {keyword}")
    return stage


# --- what the test talks to -----------------------------------------------------------------------------------------

class StandInFlickr:
    """An HTTPS stand-in for api.flickr.com and its image hosts on port 443 of every address in the namespace. It
    answers searches with Flickr's empty result, holding the first one until `release` is set, or with one photo on
    `photo_host` once that is set (the real format: url_l and its size); serves that photo's bytes; and records
    searches, image requests (with their Host) and refused handshakes."""

    def __init__(self, certificate, key):
        self.searches, self.images, self.handshake_errors = [], [], []
        self.first_search, self.release = threading.Event(), threading.Event()
        self.photo_host = None
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if not self.path.startswith("/services/rest/"):
                    stand_in.images.append((self.headers.get("Host"), self.path))
                    return self.answer(open(PHOTO, "rb").read(), "image/jpeg")
                stand_in.searches.append(self.path)
                if len(stand_in.searches) == 1:
                    stand_in.first_search.set()
                    stand_in.release.wait(30)
                photos = []
                if stand_in.photo_host:
                    photo_id = str(52000000000 + len(stand_in.searches))
                    photos.append({"id": photo_id, "owner": "12345678@N00", "secret": "a1b2c3", "server": "65535", "farm": 66,
                                   "title": "On the image host", "ispublic": 1, "isfriend": 0, "isfamily": 0, "license": "4",
                                   "ownername": "Host Photographer", "url_l": f"{stand_in.photo_host}/65535/{photo_id}_a1b2c3_b.jpg",
                                   "width_l": 683, "height_l": "1024",
                                   # Its tags say its sky, so that the quality gate does not judge its light against the
                                   # real sky now (an undated bright photo is rightly turned down at night).
                                   "tags": "nightscape"})
                self.answer(json.dumps({"photos": {"page": 1, "pages": 1 if photos else 0, "perpage": 250, "total": len(photos),
                                                   "photo": photos}, "stat": "ok"}).encode(), "application/json")

            def answer(self, body, content_type):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, address):
                stand_in.handshake_errors.append(str(sys.exc_info()[1]))

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.server = Server(("0.0.0.0", 443), Handler)
        # Plain HTTP on port 80 too, so that a build that forgot the HTTPS-only rule would be seen fetching.
        self.plain = Server(("0.0.0.0", 80), Handler)
        threading.Thread(target=self.plain.serve_forever, daemon=True).start()
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True, do_handshake_on_connect=False)
        original = self.server.finish_request

        def finish_request(request, address):
            try:
                request.do_handshake()
            except (ssl.SSLError, OSError) as error:
                self.handshake_errors.append(str(error))
                return
            original(request, address)

        self.server.finish_request = finish_request
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.plain.shutdown()


def make_test_ca(folder):
    """A test CA and a certificate it signed for api.flickr.com and the image hosts: (ca.crt, server.crt, server.key)."""
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, cwd=folder, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Backdrop test CA",
            "-keyout", "ca.key", "-out", "ca.crt")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={STAND_IN_HOST}", "-keyout", "server.key",
            "-out", "server.csr")
    with open(os.path.join(folder, "san.ext"), "w") as file:
        file.write(f"subjectAltName=DNS:{STAND_IN_HOST},DNS:{IMAGE_HOST},DNS:{PRIVATE_IMAGE_HOST}\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-extfile", "san.ext", "-out", "server.crt")
    return [os.path.join(folder, name) for name in ("ca.crt", "server.crt", "server.key")]


def get(url, timeout=20):
    """(status, headers, body) of a GET; HTTP errors are answers too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def png_size(data):
    """(width, height) of a PNG whose chunks' CRCs and image data all check out, else None."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    offset, header, idat = 8, None, b""
    while offset + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        chunk = data[offset + 8:offset + 8 + length]
        if zlib.crc32(kind + chunk) != struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])[0]:
            return None
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
        offset += 12 + length
    if header is None or header[2] != 8:
        return None
    width, height, _, color = header[:4]
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    try:
        pixels = zlib.decompress(idat)
    except zlib.error:
        return None
    return (width, height) if channels and len(pixels) == height * (1 + width * channels) else None


class Container:
    """The image's ENTRYPOINT + CMD running as its user, like `docker run [-e K=V] IMAGE`."""

    def __init__(self, stage, log, env=None):
        self.stage, self.port = stage, stage.ports[0]
        self.log = open(log, "ab")
        # Tests never reach beyond loopback: Wikimedia Commons (on by default) is left out.
        env = {"BACKDROP_PHOTO_SOURCES": "flickr,stock", **(env or {})}
        self.process = stage.spawn(stage.entrypoint + stage.cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"

    def ready(self, seconds=30):
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.process.poll() is None:
            try:
                if get(self.base + "/health", timeout=2)[0] == 200:
                    return True
            except OSError:
                time.sleep(0.05)  # polling the port until it listens: start-up has no other signal
        return False

    def stop(self, seconds=30):
        if self.process.poll() is None:
            self.process.send_signal(getattr(signal, self.stage.stop_signal, signal.SIGTERM))
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return None
        finally:
            self.log.close()


def healthcheck_code(stage):
    seconds = float(stage.healthcheck_options.get("timeout", "30s").rstrip("s"))
    return stage.run(stage.healthcheck, timeout=seconds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def serve_checks(stage, work):
    log = os.path.join(work, "backdrop.log")
    uid, _ = stage.ids()
    check("the image's user is not root", uid != 0, f"uid {uid}")
    check("there is a HEALTHCHECK command, an ENTRYPOINT and an EXPOSEd port",
          bool(stage.healthcheck and stage.entrypoint and stage.ports))
    place = "lat=48.8566&lon=2.3522&width=320&height=568"

    # 1. Served as built.
    container = Container(stage, log)
    if not check("starts and answers /health", container.ready(), f"log: {open(log).read()[-800:]}"):
        container.stop()
        return
    status, headers, body = get(container.base + "/health")
    check("/health is JSON with status ok", status == 200 and json.loads(body).get("status") == "ok", body[:200])
    status, headers, body = get(container.base + "/")
    check("the demo page is served from the image's public folder",
          status == 200 and headers.get("Content-Type", "").startswith("text/html"), f"{status}")
    # Steps 1 and 2 must fall in one 15-minute window (a new window is a new photo, not a cache hit): with under 30 s
    # of this one left, wait for the next (a wall-clock boundary, not a process to synchronise with; at most 30 s).
    left = json.loads(get(container.base + "/background.json?" + place)[2])["window"]["secondsLeft"]
    if left < 30:
        time.sleep(left + 1)
    status, headers, first = get(container.base + "/background?" + place)
    check("a render is a valid PNG of the asked size (320x568)",
          status == 200 and png_size(first) == (320, 568), f"{status}, {png_size(first)}")
    first_modified = headers.get("Last-Modified")
    signatures = {"avif": lambda b: b[4:12] == b"ftypavif", "webp": lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP",
                  "jpeg": lambda b: b[:3] == b"\xff\xd8\xff"}
    encoded = {f: get(container.base + f"/background?{place}&format={f}") for f in signatures}
    check("AVIF, WebP and JPEG renders (the encoders' libraries are in the image)",
          all(a[0] == 200 and a[1].get("Content-Type") == f"image/{f}" and signatures[f](a[2]) for f, a in encoded.items()),
          str({f: (a[0], a[1].get("Content-Type")) for f, a in encoded.items()}))
    check("the HEALTHCHECK command exits 0 while serving", healthcheck_code(stage) == 0)
    cache = [v for v in stage.volumes if "cache" in v] or ["/app/cache"]
    files = [os.path.join(folder, f) for folder, _, names in os.walk(os.path.join(stage.rootfs, cache[0].lstrip("/")))
             for f in names]
    check(f"the render is written to the cache volume {cache[0]} by the image's user",
          bool(files) and all(os.stat(f).st_uid == uid for f in files), f"{len(files)} files")
    code = container.stop()
    check(f"{stage.stop_signal} stops it with exit code 0", code == 0, f"exit {code}")
    check("the HEALTHCHECK command fails once it is stopped", healthcheck_code(stage) != 0)

    # 2. Restarted on the same cache volume: the render comes from disk.
    container = Container(stage, log)
    if check("starts again", container.ready()):
        status, headers, again = get(container.base + "/background?" + place)
        _, _, metrics = get(container.base + "/metrics")
        metrics = metrics.decode()
        misses = metric(metrics, 'backdrop_cache_misses_total{kind="render"}')
        check("after the restart the render comes from the cache volume",
              status == 200 and again == first and headers.get("Last-Modified") == first_modified
              and metric(metrics, 'backdrop_cache_hits_total{kind="render"}') >= 1 and misses == 0,
              f"{status}, same bytes {again == first}, misses {misses}")
    container.stop()

    # 3. A Flickr key but no way to reach Flickr (no network here): stock photos, within the deadline.
    container = Container(stage, log, env={"FLICKR_API_KEY": "test-key"})
    if check("starts with FLICKR_API_KEY set", container.ready()):
        started = time.monotonic()
        status, headers, body = get(container.base + "/background?lat=-33.8688&lon=151.2093&width=320&height=568")
        check("Flickr unreachable: a stock photo is served",
              status == 200 and headers.get("X-Backdrop-Source") == "stock" and png_size(body) == (320, 568),
              f"{status} {headers.get('X-Backdrop-Source')}")
        check("and within the request deadline", time.monotonic() - started < 11, f"{time.monotonic() - started:.1f} s")
    container.stop()

    # 4. TLS trust: an HTTPS stand-in for api.flickr.com with a certificate from a test CA.
    ca, certificate, key = make_test_ca(work)
    with open(os.path.join(stage.rootfs, "etc", "hosts"), "a") as hosts:
        hosts.write(f"127.0.0.1 {STAND_IN_HOST}\n{IMAGE_ADDRESS} {IMAGE_HOST}\n127.0.0.1 {PRIVATE_IMAGE_HOST}\n")  # as --add-host would
    subprocess.run(["ip", "addr", "add", f"{IMAGE_ADDRESS}/32", "dev", "lo"], check=True)
    stand_in = StandInFlickr(certificate, key)
    try:
        container = Container(stage, log, env={"FLICKR_API_KEY": "test-key"})
        if check("starts with the HTTPS stand-in for Flickr", container.ready()):
            status, _, _ = get(container.base + "/background?lat=35.6762&lon=139.6503&width=320&height=568")
            check("without the test CA the handshake is refused (the image's trust store is what decides)",
                  status == 200 and not stand_in.searches and stand_in.handshake_errors,
                  f"{status}, searches {len(stand_in.searches)}, handshake errors {stand_in.handshake_errors[:1]}")
        container.stop()

        trust = os.path.join(stage.rootfs, "usr", "local", "share", "ca-certificates", "backdrop-test-ca.crt")
        os.makedirs(os.path.dirname(trust), exist_ok=True)
        shutil.copy(ca, trust)
        code = stage.run(["update-ca-certificates"], user="root", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        check("update-ca-certificates adds the test CA to the image's trust store", code == 0, f"exit {code}")

        container = Container(stage, log, env={"FLICKR_API_KEY": "test-key"})
        if check("starts with the test CA trusted", container.ready()):
            answer = {}

            def request():
                answer["value"] = get(container.base + "/background?lat=51.5072&lon=-0.1276&width=320&height=568")

            client = threading.Thread(target=request)
            client.start()
            reached = stand_in.first_search.wait(15)
            search = stand_in.searches[0] if stand_in.searches else ""
            check("with the test CA trusted the search reaches the stand-in over TLS",
                  reached and "method=flickr.photos.search" in search and "api_key=test-key" in search,
                  f"{search[:120]} {stand_in.handshake_errors[:1]}")
            # A request is in flight (its search held by the stand-in): the stop signal must let it finish.
            container.process.send_signal(getattr(signal, stage.stop_signal))
            try:  # a second's look: the process must not exit while its request is held
                container.process.wait(timeout=1.0)
                alive = False
            except subprocess.TimeoutExpired:
                alive = True
            stand_in.release.set()
            client.join(30)
            status, headers, body = answer.get("value", (None, {}, b""))
            check(f"{stage.stop_signal} with a request in flight: that request still gets its image",
                  alive and status == 200 and png_size(body) == (320, 568), f"alive {alive}, {status}")
        code = container.stop()
        check("and then the process exits 0", code == 0, f"exit {code}")
        image_host_checks(stage, log, stand_in)
    finally:
        stand_in.close()


def image_host_checks(stage, log, stand_in):
    """5. The production host rule end to end: a photo on an HTTPS host under staticflickr.com at a public address is
    downloaded and served; one under staticflickr.com resolving to loopback, or over plain HTTP, is refused (stock)."""
    container = Container(stage, log, env={"FLICKR_API_KEY": "test-key"})
    try:
        if not check("starts for the image host checks", container.ready()):
            return
        cases = [
            (f"https://{IMAGE_HOST}", "48.8566", "flickr", IMAGE_HOST, "an HTTPS image host under staticflickr.com at a public address is fetched"),
            (f"https://{PRIVATE_IMAGE_HOST}", "40.7128", "stock", None, "one resolving to loopback is refused: stock, nothing fetched"),
            (f"http://{IMAGE_HOST}", "-33.8688", "stock", None, "plain HTTP to the image host is refused: stock, nothing fetched"),
        ]
        for host, lat, source, fetched, name in cases:
            stand_in.photo_host, before, searches = host, len(stand_in.images), len(stand_in.searches)
            status, headers, body = get(container.base + f"/background?lat={lat}&lon=2.35&width=320&height=568")
            images = stand_in.images[before:]
            check(name, status == 200 and len(stand_in.searches) == searches + 1 and headers.get("X-Backdrop-Source") == source
                  and png_size(body) == (320, 568) and [h for h, _ in images] == ([fetched] if fetched else []),
                  f"{status} {headers.get('X-Backdrop-Source')} searches {len(stand_in.searches) - searches} {images} {stand_in.handshake_errors[-1:]}")
    finally:
        stand_in.photo_host = None
        container.stop()


def main():
    dockerfile = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(ROOT, "Dockerfile")
    if sys.argv[1] == "--rootfs-only":
        if os.geteuid() != 0:
            print("container: skipped: debootstrap needs root")
            return
        image = runtime_image(instructions(open(dockerfile).read()))
        print(f"container: the root filesystem of {image}", flush=True)
        base_rootfs(image)
        return
    binary = os.path.abspath(sys.argv[1])
    print(f"container: running the runtime stage of {os.path.relpath(dockerfile, ROOT)} with {binary}", flush=True)
    if os.geteuid() != 0:
        print("container: skipped: building and running the image's root filesystem needs root (chroot, namespaces)")
        return
    lines = instructions(open(dockerfile).read())
    unshare(CLONE_NEWNS)  # mounts made here (/proc, /sys in the image) vanish with this process
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="run-", dir=CACHE)
    try:
        started = time.monotonic()
        stage = build(lines, binary, work)
        print(f"  built in {time.monotonic() - started:.0f} s ({datetime.datetime.now():%H:%M:%S})", flush=True)
        unshare(CLONE_NEWNET)  # loopback only: the image's port 8080 is its own, and nothing outside is reachable
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        serve_checks(stage, work)
    finally:
        for mount in ("sys", "proc"):
            subprocess.run(["umount", "-l", os.path.join(work, "rootfs", mount)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"container: {results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
