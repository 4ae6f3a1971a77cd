#!/usr/bin/env python3
"""Hostile and unlucky clients against the real binary on loopback: unfinished heads trickling in, idle sockets, more
connections than allowed. Prints one `ok`/`FAIL` line per check and `hostile: N passed, N failed`.

usage: hostile_clients.py PATH/TO/backdrop [--sockets 4000] [--bench]

Checks, with the timeouts shortened by configuration so that the run stays short:
- 4,000 connections trickling an unfinished head and 4,000 idle ones: /health answers (within 1 s, the margin a loaded
  machine needs) at every tick, resident memory grows by at most 25 kB a connection (twice the target, for the same
  reason), every trickling connection is closed within its head timeout (plus slack) and every idle one within its idle
  timeout;
- SIGTERM with idle and half-sent connections open: they are closed at once and the server exits 0;
- a client that stops reading six 2048x1953 PNGs is closed within 15 s (a slow one that keeps reading is not), and SIGTERM
  with such a client connected ends the server within 20 s;
- past server.maxConnections, a new connection waits (accepting pauses, nothing spins) and is served once one closes;
- renders at 2048x1953 stay within the memory budgets plus 100 MB;
- the disk cache on a 24 MB tmpfs (as root, in a private mount namespace): filled to its last megabyte, then freed,
  then its folder deleted: every answer a whole 200, and the cache writes again each time without a restart.
With --bench (part of `make bench`) only the first run is made, and its tight figures are reported against their
targets (/health within 100 ms at every tick, at most 12.5 kB a connection: 100 MB for 8,000) instead of checked.
Everything binds 127.0.0.1, every loop is bounded in time, and the server is stopped at the end.
"""
import argparse
import ctypes
import json
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
from backdrop_server import free_port, metric, rss_mb, wait_until_serving  # noqa: E402
from checks import check, finish, run_part  # noqa: E402



def start(binary, work, server, cache=None, render=None):
    port = free_port()
    config = {"server": {"host": "127.0.0.1", "port": port, "publicFolder": os.path.join(ROOT, "Public"), "logLevel": "warning", **server},
              "photos": {"stockFolder": os.path.join(ROOT, "StockPhotos")}, "cache": {"folder": "", **(cache or {})},
              "render": render or {}}
    path = os.path.join(work, f"config-{port}.json")
    with open(path, "w") as f:
        json.dump(config, f)
    # Tests never reach beyond loopback: Wikimedia Commons (on by default) is left out.
    env = dict(os.environ, BACKDROP_PHOTO_SOURCES="flickr,stock")
    process = subprocess.Popen([binary, "serve", "--config", path], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_until_serving(base + "/health", "backdrop", 60, give_up=process.kill)
    return process, port


def health_ms(port):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return (time.monotonic() - started) * 1000, data.startswith(b"HTTP/1.1 200")


def stalled_connections(binary, work, count, bench=False):
    head_timeout, idle_timeout = 3, 6
    process, port = start(binary, work, {"requestHeadTimeoutSeconds": head_timeout, "idleTimeoutSeconds": idle_timeout})
    try:
        before = rss_mb(process.pid)
        selector = selectors.DefaultSelector()
        opened = {}
        head = b"GET /background?lat=1&lon=2 HTTP/1.1\r\nHost: x\r\nX-Padding: "
        started = time.monotonic()
        for index in range(2 * count):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            kind = "trickle" if index % 2 == 0 else "idle"
            opened[s.fileno()] = (s, kind, time.monotonic())
            selector.register(s, selectors.EVENT_READ)
            if index % 400 == 399:
                # In batches below the listen backlog: a /health behind them in the accept queue is answered once
                # they have been accepted, so none overflows the backlog and starts its timeout late. Then the batch's
                # tricklers start their unfinished heads, batch after batch, as clients arriving over time would.
                health_ms(port)
                for s, kind, _ in list(opened.values())[-400:]:
                    if kind == "trickle":
                        try:
                            s.send(head)
                        except OSError:
                            pass
        closed = {}
        worst_health, failed_health, peak = 0.0, 0, before
        next_trickle = time.monotonic() + 1
        deadline = started + idle_timeout + 15
        while len(closed) < len(opened) and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=0.1):
                s, kind, opened_at = opened[key.fd]
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed[key.fd] = time.monotonic() - opened_at
                    selector.unregister(s)
                    s.close()
            if time.monotonic() >= next_trickle:
                next_trickle += 1
                for fd, (s, kind, _) in opened.items():
                    if kind == "trickle" and fd not in closed:
                        try:
                            s.send(b"a")
                        except OSError:
                            pass
                ms, ok = health_ms(port)
                worst_health = max(worst_health, ms)
                failed_health += 0 if ok else 1
                peak = max(peak, rss_mb(process.pid))
        trickle_times = [t for fd, t in closed.items() if opened[fd][1] == "trickle"]
        idle_times = [t for fd, t in closed.items() if opened[fd][1] == "idle"]
        per_connection_kb = (peak - before) * 1024 / (2 * count)
        if bench:
            print(f"\nHostile connections: {count} trickling heads and {count} idle sockets on the same 2 cores\n")
            print("| figure | measured | target |\n|---|---|---|")
            print(f"| worst /health while they are open | {worst_health:.0f} ms ({failed_health} failed) | 100 ms |")
            print(f"| resident memory a connection | {per_connection_kb:.1f} kB ({before:.0f} -> {peak:.0f} MB) | 12.5 kB |")
            return
        check(f"{count} trickling heads and {count} idle sockets: /health answered within 1 s at every tick",
              worst_health < 1000 and failed_health == 0, f"worst {worst_health:.0f} ms, {failed_health} failed")
        # The target is 12.5 kB (make bench reports it); the check allows twice that, so that a loaded machine cannot fail it.
        check(f"resident memory grows by at most 25 kB a connection ({2 * count} connections)", per_connection_kb <= 25,
              f"{before:.0f} -> {peak:.0f} MB, {per_connection_kb:.1f} kB each")
        check(f"every trickling connection closed within its head timeout ({head_timeout} s, plus 3 s slack)",
              len(trickle_times) == count and max(trickle_times) <= head_timeout + 3,
              f"{len(trickle_times)} closed, slowest {max(trickle_times, default=0):.1f} s")
        check(f"every idle connection closed within its idle timeout ({idle_timeout} s, plus 3 s slack)",
              len(idle_times) == count and max(idle_times) <= idle_timeout + 3,
              f"{len(idle_times)} closed, slowest {max(idle_times, default=0):.1f} s")
        for s, _, _ in opened.values():
            s.close()
    finally:
        process.terminate()
        process.wait(timeout=30)


def shutdown_with_open_connections(binary, work):
    """SIGTERM with connections that sent nothing or half a head: they are closed at once and the server exits 0."""
    process, port = start(binary, work, {})
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    partial = socket.create_connection(("127.0.0.1", port))
    partial.send(b"GET /health HTTP/1.1\r\nHost: x\r\n")
    health_ms(port)  # the connections above were accepted before this one was answered
    # Accepted is not yet read: the half head may still wait in the kernel a few milliseconds (its event loop busy), and
    # a socket closed with unread bytes is reset, not closed. The check is of a half head the server holds.
    taken = wait_until_read(port, partial.getsockname()[1], seconds=5)
    started = time.monotonic()
    process.terminate()
    code = process.wait(timeout=30)
    took = time.monotonic() - started
    closed = 0
    for s in idle + [partial]:
        s.settimeout(5)
        try:
            closed += s.recv(16) == b""
        except OSError:
            pass
        s.close()
    check("SIGTERM closes idle and half-sent connections at once and exits 0", taken and code == 0 and took < 2 and closed == 4,
          f"half head read: {taken}; exit {code} after {took:.2f} s, {closed} of 4 closed")


def wait_until_read(port, peer_port, seconds):
    """Whether the server has read every byte the client at `peer_port` sent (its socket's receive queue in
    /proc/net/tcp is empty) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open("/proc/net/tcp") as f:
            for line in f.read().splitlines()[1:]:
                fields = line.split()
                local, remote = (int(fields[i].split(":")[1], 16) for i in (1, 2))
                if (local, remote) == (port, peer_port) and int(fields[4].split(":")[1], 16) == 0:
                    return True
        time.sleep(0.01)  # polling the kernel's table, bounded by the deadline
    return False


def stalled_reader(port, lat):
    """A client that asks for six 2048x1953 PNGs on one connection (about 8 MB, more than loopback's socket buffers
    hold), takes the first answer's head, then reads nothing more."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(60)
    s.connect(("127.0.0.1", port))
    asks = "".join(f"GET /background?lat={lat}&lon={lon}&width=2048&height=1953&format=png&blur=0 HTTP/1.1\r\nHost: x\r\n\r\n"
                   for lon in (-120, -60, 0, 30, 60, 120))
    s.sendall(asks.encode())
    head = s.recv(1024)
    return s, head.startswith(b"HTTP/1.1 200")


def slow_readers(binary, work):
    """A client that stops reading large PNGs is closed within the stall bound (15 s), and SIGTERM with such a client
    connected ends the server within its 20-s bound; a slow client that keeps reading gets its whole answer."""
    process, port = start(binary, work, {})
    stopped = False
    try:
        base = f"http://127.0.0.1:{port}"
        # An ordinary slow reader: a 1024x1024 PNG taken at its own pace, 64 kB a quarter second at most.
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        slow.settimeout(60)
        slow.connect(("127.0.0.1", port))
        slow.sendall(b"GET /background?lat=48.85&lon=2.29&width=1024&height=1024&format=png&blur=0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            chunk = slow.recv(65536)
            if not chunk:
                break
            data += chunk
            time.sleep(0.25)  # the client's own pace, not a wait on the server
        slow.close()
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), -1)
        check("a slow reader that keeps reading gets its whole answer", head.startswith(b"HTTP/1.1 200") and len(body) == length,
              f"{len(body)} of {length} bytes")
        # A stalled reader: closed once it has read nothing for 15 s.
        series = 'backdrop_connections_closed_total{reason="write_stalled"}'
        stalled, ok = stalled_reader(port, 40.41)
        started = time.monotonic()
        closed_after = None
        while time.monotonic() - started < 60:  # polling the metric, bounded
            if metric(urllib.request.urlopen(base + "/metrics", timeout=10).read().decode(), series) >= 1:
                closed_after = time.monotonic() - started
                break
            time.sleep(0.5)
        stalled.close()
        check("a client that stops reading six 2048x1953 PNGs is closed within the stall bound (15 s, 25 with a loaded machine's margin)",
              ok and closed_after is not None and closed_after <= 25, f"closed after {closed_after} s")
        # SIGTERM while another reader is stalled mid-answer: the server still exits within its bound.
        held, ok = stalled_reader(port, -33.86)
        started = time.monotonic()
        process.terminate()
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            code = None
        took = time.monotonic() - started
        stopped = code is not None
        held.close()
        check("SIGTERM with a reader stalled mid-answer: the server exits within 20 s (25 with a margin)",
              ok and code is not None and took <= 25, f"exit {code} after {took:.1f} s")
    finally:
        if not stopped:
            process.kill()
            process.wait(timeout=30)


def connection_limit(binary, work):
    process, port = start(binary, work, {"maxConnections": 2})
    try:
        held = []
        for _ in range(2):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            held.append((s, s.recv(65536).startswith(b"HTTP/1.1 200")))
        waiting = socket.create_connection(("127.0.0.1", port), timeout=5)
        waiting.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        waiting.settimeout(1)
        try:
            early = waiting.recv(65536)
        except socket.timeout:
            early = None
        stat = open(f"/proc/{process.pid}/stat").read().split()
        ticks_before = int(stat[13]) + int(stat[14])
        time.sleep(1)  # measuring the server's CPU use while it has a connection waiting
        stat = open(f"/proc/{process.pid}/stat").read().split()
        ticks = int(stat[13]) + int(stat[14]) - ticks_before
        held[0][0].close()
        waiting.settimeout(5)
        late = waiting.recv(65536)
        check("past server.maxConnections a new connection waits, without spinning",
              all(ok for _, ok in held) and early is None and ticks < 20, f"{ticks} CPU ticks in a second")
        check("and is served once a connection closes", late.startswith(b"HTTP/1.1 200"))
        for s, _ in held[1:]:
            s.close()
        waiting.close()
    finally:
        process.terminate()
        process.wait(timeout=30)


def largest_renders(binary, work):
    prepared, rendered = 64, 32
    process, port = start(binary, work, {}, cache={"renderedImagesMemoryMB": rendered}, render={"preparedImagesMemoryMB": prepared})
    base = f"http://127.0.0.1:{port}"
    try:
        start_rss = rss_mb(process.pid)
        peak = start_rss
        styles = ["light", "dark", "extralight", "none"]
        for i in range(48):
            lat, lon = (i * 7.3) % 170 - 85, (i * 13.1) % 350 - 175
            url = f"{base}/background?lat={lat:.3f}&lon={lon:.3f}&width=2048&height=1953&blur=0.{i % 9 + 1}&style={styles[i % 4]}"
            urllib.request.urlopen(url, timeout=60).read()
            peak = max(peak, rss_mb(process.pid))
        limit = start_rss + prepared + rendered + 100
        check(f"48 renders at 2048x1953: resident memory within the memory budgets ({prepared} + {rendered} MB) plus 100 MB",
              peak <= limit, f"{start_rss:.0f} MB at start, peak {peak:.0f} MB, limit {limit:.0f} MB")
    finally:
        process.terminate()
        process.wait(timeout=30)


def full_disk(binary, work):
    """The cache on a real, small volume (tmpfs in a private mount namespace): filled to the last megabyte, then freed,
    then its folder deleted. Every answer stays a 200, and the cache writes again without a restart."""
    if os.geteuid() != 0:
        print("  skip full-disk check: mounting a small volume needs root")
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS: the mount vanishes with this process
        print("  skip full-disk check: no mount namespace here")
        return
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    volume = os.path.join(work, "volume")
    os.makedirs(volume)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", volume], check=True)
    cache = os.path.join(volume, "cache")
    process, port = start(binary, work, {}, cache={"folder": cache, "maxMB": 512})
    base = f"http://127.0.0.1:{port}"
    cell = iter(range(10_000))

    def renders(count):
        """`count` new places rendered: (every answer a 200 with a whole PNG, cache files now)."""
        ok = True
        for _ in range(count):
            i = next(cell)
            with urllib.request.urlopen(f"{base}/background?lat={(i * 1.7) % 170 - 85:.3f}&lon={(i * 3.1) % 350 - 175:.3f}&blur=0.5",
                                        timeout=30) as response:
                body = response.read()
                ok = ok and response.status == 200 and body.startswith(b"\x89PNG") and len(body) == int(response.headers["Content-Length"])
        files = sum(1 for _, _, names in os.walk(cache) for name in names if name.endswith(".bdc"))
        return ok, files

    try:
        free = os.statvfs(volume)
        filler = os.path.join(volume, "filler")
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, free.f_bavail * free.f_frsize - (1 << 20)))
        ok, before = renders(12)
        errors = metric(urllib.request.urlopen(base + "/metrics").read().decode(), 'backdrop_cache_errors_total{operation="write"}')
        check("a full volume: every answer a whole 200, the failed writes counted", ok and errors > 0, f"ok {ok}, write errors {errors}")
        os.remove(filler)
        ok, after = renders(6)
        check("space back: the cache writes again without a restart", ok and after > before, f"{before} -> {after} files")
        subprocess.run(["rm", "-rf", cache], check=True)
        ok, recreated = renders(4)
        check("cache folder deleted: answers stay 200 and the folder is recreated and written", ok and recreated > 0, f"{recreated} files")
    finally:
        process.terminate()
        process.wait(timeout=30)
        subprocess.run(["umount", "-l", volume], capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--sockets", type=int, default=4000)
    ap.add_argument("--bench", action="store_true", help="report the tight figures of the first run instead of checking")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    count = min(a.sockets, (hard - 200) // 4)  # client and server sockets share this machine's limit
    work = tempfile.mkdtemp(prefix="backdrop-hostile-")
    if a.bench:
        stalled_connections(a.binary, work, count, bench=True)
        return
    print(f"hostile: checking {a.binary}")
    for part, args in [(stalled_connections, (a.binary, work, count)), (shutdown_with_open_connections, (a.binary, work)),
                       (slow_readers, (a.binary, work)),
                       (connection_limit, (a.binary, work)), (largest_renders, (a.binary, work)), (full_disk, (a.binary, work))]:
        run_part(part, *args)
    finish("hostile")


if __name__ == "__main__":
    main()
