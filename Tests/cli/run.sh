#!/usr/bin/env bash
# Command-line and process-level checks of the `backdrop` binary: configuration errors and overrides, start-up
# refusals, real HTTP on loopback, PNG validity by pngcheck, and graceful shutdown on SIGTERM/SIGINT with a
# request in flight. Every server here binds 127.0.0.1 on a free port and is stopped by this script.
#
# usage: Tests/cli/run.sh PATH/TO/backdrop
set -u
BIN=$(realpath "${1:?usage: run.sh PATH/TO/backdrop}")
# Tests never reach beyond loopback: Wikimedia Commons (on by default) is left out.
export BACKDROP_PHOTO_SOURCES=flickr,stock
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
PASSED=0
FAILED=0
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT

pass() { PASSED=$((PASSED + 1)); echo "  ok   $1"; }
fail() { FAILED=$((FAILED + 1)); echo "  FAIL $1"; [ -n "${2:-}" ] && sed 's/^/       /' <<<"$2" | head -20; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# Waits (up to 60 s, polling) until FILE contains TEXT on more than AFTER lines (default 0).
wait_for_text() {
  local file=$1 text=$2 after=${3:-0}
  for _ in $(seq 1 600); do
    [ "$(grep -c -- "$text" "$file" 2>/dev/null)" -gt "$after" ] && return 0
    sleep 0.1
  done
  return 1
}

# Runs the binary expecting it to exit with code CODE (2: configuration, 3: stock photos) within 30 s with TEXT on
# stderr. A crash, a hang or another code fails.
expect_refusal() {
  local name=$1 text=$2 code=$3; shift 3
  local out rc
  out=$(cd "$WORK" && timeout 30 "$@" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -eq "$code" ] && grep -q -- "$text" <<<"$out"; then pass "$name (exit $rc)"; else fail "$name (exit $rc, expected $code)" "$out"; fi
}

echo "cli: checking $BIN"

# --- configuration errors name the key and exit non-zero
printf '{"server": {"port": 99999}}' > "$WORK/range.json"
expect_refusal "out-of-range value names server.port" "server.port" 2 "$BIN" serve --config "$WORK/range.json"
printf '{"render": {"blurr": 1}}' > "$WORK/unknown.json"
expect_refusal "unknown key names render.blurr" "render.blurr" 2 "$BIN" serve --config "$WORK/unknown.json"
printf '{"photos": {"geohashPrecision": "five"}}' > "$WORK/type.json"
expect_refusal "wrong type names photos.geohashPrecision" "photos.geohashPrecision" 2 "$BIN" serve --config "$WORK/type.json"
printf '{"server": {' > "$WORK/broken.json"
expect_refusal "malformed JSON is refused" "not valid JSON" 2 "$BIN" serve --config "$WORK/broken.json"
expect_refusal "missing config file is refused" "cannot read config file" 2 "$BIN" serve --config "$WORK/nope.json"
expect_refusal "bad BACKDROP_PORT names the variable" "BACKDROP_PORT" 2 env BACKDROP_PORT=eighty "$BIN" serve --config "$ROOT/config.json"
printf '{"server": {"port": 8080, "host": "127.0.0.1", "port": 8081}}' > "$WORK/twice.json"
expect_refusal "a key given twice is named" "server.port" 2 "$BIN" serve --config "$WORK/twice.json"
printf '{"flickr": {"extraImageHosts": ["http://a b"]}}' > "$WORK/hosts.json"
expect_refusal "a malformed image host is named" "flickr.extraImageHosts" 2 "$BIN" serve --config "$WORK/hosts.json"
printf '{"cluster": {"leaseSeconds": 1}}' > "$WORK/lease.json"
expect_refusal "a lease not above the request deadline is named" "cluster.leaseSeconds" 2 "$BIN" serve --config "$WORK/lease.json"
python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)' > "$WORK/busy.port" &
BUSY=$!
for _ in $(seq 100); do [ -s "$WORK/busy.port" ] && break; sleep 0.1; done
expect_refusal "a port in use names server.port" "server.port" 2 "$BIN" serve --config "$ROOT/config.json" --port "$(cat "$WORK/busy.port")"
kill $BUSY 2>/dev/null
expect_refusal "an address not of this machine names server.host" "server.host" 2 env BACKDROP_HOST=192.0.2.1 "$BIN" serve --config "$ROOT/config.json"
expect_refusal "a host that does not resolve names server.host" "server.host" 2 "$BIN" serve --config "$ROOT/config.json" --host "no such host"
printf '{"photos": {"stockFolder": "%s/empty"}}' "$WORK" > "$WORK/nostock.json"
mkdir -p "$WORK/empty"
expect_refusal "empty stock folder refuses to start" "no stock photos" 3 "$BIN" serve --config "$WORK/nostock.json"
printf '{"photos": {"stockFolder": "%s/missing"}}' "$WORK" > "$WORK/missingstock.json"
expect_refusal "missing stock folder refuses to start" "does not exist" 3 "$BIN" serve --config "$WORK/missingstock.json"
# The operator's own photos: a photo whose credit gives no phase stops the start, naming the setting, the file and the field.
mkdir -p "$WORK/own"
cp "$ROOT/StockPhotos/016-kite.jpg" "$WORK/own/001-harbour.jpg"
printf '| 001 | Harbour | Ops | CC BY 4.0 | https://creativecommons.org/licenses/by/4.0/ | https://example.org/h | |\n' > "$WORK/own/CREDITS.md"
expect_refusal "an operator's photo without a phase refuses to start" "photos.extraStockFolder: 001-harbour.jpg: its phase is missing" 3 \
    env BACKDROP_EXTRA_STOCK_FOLDER="$WORK/own" "$BIN" serve --config "$ROOT/config.json"

# --- backdrop config: the effective configuration, each key's source, secrets masked
printf '{"server": {"port": 1111}, "cluster": {"postgresURL": "postgres://u:FILESECRET@db/x"}}' > "$WORK/print.json"
printed=$(cd "$WORK" && timeout 30 env FLICKR_API_KEY=KEYSECRET BACKDROP_LOG_LEVEL=debug "$BIN" config --print --config "$WORK/print.json" --host 127.0.0.9 2>&1)
rc=$?
if [ $rc -eq 0 ] \
  && grep -Eq '^server\.host +127\.0\.0\.9 +\(flag --host\)$' <<<"$printed" \
  && grep -Eq '^server\.logLevel +debug +\(environment BACKDROP_LOG_LEVEL\)$' <<<"$printed" \
  && grep -Eq "^server\.port +1111 +\(file $WORK/print.json\)$" <<<"$printed" \
  && grep -Eq '^render\.width +640 +\(default\)$' <<<"$printed" \
  && grep -Eq '^flickr\.apiKey +\*\*\*\* +\(environment FLICKR_API_KEY\)$' <<<"$printed" \
  && grep -Eq '^cluster\.postgresURL +postgres://u:\*\*\*\*@db/x +\(file ' <<<"$printed" \
  && ! grep -q 'SECRET' <<<"$printed" \
  && [ "$(grep -c '' <<<"$printed")" -eq "$(python3 -c 'import json,sys; print(sum(len(v) for v in json.load(open(sys.argv[1])).values()))' "$ROOT/config.json")" ]; then
  pass "config --print gives every key of config.json once, with its source (flag, environment, file, default), secrets masked"
else
  fail "config --print (exit $rc)" "$printed"
fi
expect_refusal "config checks as serve does, naming the variable" "BACKDROP_PORT" 2 env BACKDROP_PORT=eighty "$BIN" config --config "$ROOT/config.json"

# --- a real server: environment overrides the file, the flag overrides the environment
PORT=$(free_port)
ENV_PORT=$(free_port)
( cd "$WORK" && exec env BACKDROP_PORT="$ENV_PORT" BACKDROP_LOG_LEVEL=debug "$BIN" serve --config "$ROOT/config.json" --port "$PORT" ) > "$WORK/server.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
if wait_for_text "$WORK/server.log" "listening on 127.0.0.1:$PORT"; then pass "--port overrides BACKDROP_PORT"; else fail "server did not start on --port" "$(cat "$WORK/server.log")"; fi
announced=$(grep -c "no Flickr API key" "$WORK/server.log")
[ "$announced" = 1 ] && pass "stock-only mode is announced once at start" || fail "stock-only notice seen $announced times"
if timeout 20 "$BIN" health --url "http://127.0.0.1:$PORT/health" && ! timeout 20 "$BIN" health --url "http://127.0.0.1:$(free_port)/health" 2>/dev/null; then
  pass "backdrop health exits 0 for a live server and 1 for none"
else
  fail "backdrop health"
fi

code=$(curl -s -o "$WORK/bg.png" -w '%{http_code}' --max-time 60 "http://127.0.0.1:$PORT/background?lat=51.5&lon=-0.12&blur=0.5")
if [ "$code" = 200 ] && pngcheck "$WORK/bg.png" 2>&1 | grep -q '^OK: .*(640x1136, 24-bit RGB'; then
  pass "GET /background serves a valid 640x1136 PNG (pngcheck)"
else
  fail "GET /background" "status $code; $(pngcheck "$WORK/bg.png" 2>&1)"
fi
invalid=""
for style in light extralight dark none; do
  curl -s -o "$WORK/$style.png" --max-time 60 "http://127.0.0.1:$PORT/background?lat=51.5&lon=-0.12&width=123&height=45&blur=0.7&style=$style"
  pngcheck -q "$WORK/$style.png" >/dev/null 2>&1 || invalid="$invalid $style"
done
[ -z "$invalid" ] && pass "every style encodes a valid PNG at an odd size" || fail "invalid PNG for styles:$invalid"
body=$(curl -s --max-time 10 "http://127.0.0.1:$PORT/background?lat=91&lon=0")
grep -q '"parameter":"lat"' <<<"$body" && pass "400 body names the parameter over real HTTP" || fail "400 body" "$body"
# Durations (ms=, the only decimal field) are taken out first: a request timed at 51.5 ms is not a coordinate.
if grep -q 'path=/background' "$WORK/server.log" && ! sed -E 's/ ms=[0-9.]+//g' "$WORK/server.log" | grep -q -e '51\.5' -e '-0\.12'; then
  pass "request log has the route and no raw coordinates"
else
  fail "request log" "no path=/background line, or coordinates: $(sed -E 's/ ms=[0-9.]+//g' "$WORK/server.log" | grep -e '51\.5' -e '-0\.12' | head -3)"
fi

kill -TERM "$SERVER"
timeout 60 tail --pid="$SERVER" -f /dev/null

# --- SIGTERM: a request in flight completes, then the process exits 0. The request is held in flight by a stand-in
# Flickr whose searches hang until released (or for the request's 10 s deadline, after which stock answers), so the
# checks below never race a render that finishes first.
mkfifo "$WORK/standin.stdin"
exec 3<>"$WORK/standin.stdin"
python3 "$ROOT/Tests/support/flickr_standin.py" <&3 > "$WORK/standin.out" 2>&1 &
STANDIN_PID=$!
PIDS+=("$STANDIN_PID")
wait_for_text "$WORK/standin.out" "^port "
STANDIN="http://127.0.0.1:$(awk '/^port /{print $2}' "$WORK/standin.out")"
curl -s -o /dev/null --max-time 10 "$STANDIN/control?hang=1"
printf '{"flickr": {"endpoint": "%s/services/rest/"}}' "$STANDIN" > "$WORK/held.json"
PORT=$(free_port)
( cd "$WORK" && exec env FLICKR_API_KEY=cli-test-key BACKDROP_STOCK_FOLDER="$ROOT/StockPhotos" BACKDROP_PUBLIC_FOLDER="$ROOT/Public" \
  BACKDROP_PORT="$PORT" BACKDROP_LOG_LEVEL=debug "$BIN" serve --config "$WORK/held.json" ) > "$WORK/held.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
wait_for_text "$WORK/held.log" "listening on 127.0.0.1:$PORT"
curl -s -o "$WORK/inflight.png" -w '%{http_code}' --max-time 120 \
  "http://127.0.0.1:$PORT/background?lat=-33.9&lon=151.2&width=2048&height=1953&blur=0.4" > "$WORK/inflight.code" &
CURL=$!
# Waits (up to 60 s, polling) until the stand-in holds a search.
search_held() {
  python3 - "$STANDIN" <<'PY'
import json, sys, time, urllib.request
for _ in range(600):
    if json.load(urllib.request.urlopen(sys.argv[1] + "/stats", timeout=10))["searches"]:
        sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}
if search_held; then
  kill -TERM "$SERVER"
  # While the request is still in flight, new connections are refused (the listener closes first).
  refused=no
  for _ in $(seq 40); do
    if ! curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/health"; then refused=yes; break; fi
    sleep 0.05
  done
  kill -0 "$SERVER" 2>/dev/null && alive=yes || alive=no
  [ "$refused" = yes ] && [ "$alive" = yes ] && pass "no longer accepting after SIGTERM, while a request is still in flight" \
    || fail "accepting after SIGTERM (refused: $refused, process still serving its request: $alive)"
  curl -s -o /dev/null --max-time 10 "$STANDIN/control?hang=0"
  wait "$CURL"
  timeout 60 tail --pid="$SERVER" -f /dev/null
  wait "$SERVER"
  rc=$?
  if [ "$(cat "$WORK/inflight.code")" = 200 ] && pngcheck -q "$WORK/inflight.png" >/dev/null 2>&1 && [ $rc -eq 0 ]; then
    pass "SIGTERM lets the in-flight request finish and exits 0"
  else
    fail "SIGTERM shutdown (exit $rc, in-flight status $(cat "$WORK/inflight.code"))" "$(tail -5 "$WORK/held.log")"
  fi
else
  fail "in-flight request never reached the stand-in Flickr" "$(tail -5 "$WORK/held.log")"
fi
kill -TERM "$STANDIN_PID"
wait "$STANDIN_PID"
exec 3>&-

# --- SIGINT exits 0 too; BACKDROP_HOST/BACKDROP_PORT alone are honoured
PORT2=$(free_port)
( cd "$WORK" && exec env BACKDROP_HOST=127.0.0.1 BACKDROP_PORT="$PORT2" "$BIN" serve --config "$ROOT/config.json" ) > "$WORK/server2.log" 2>&1 &
SERVER2=$!
PIDS+=("$SERVER2")
if wait_for_text "$WORK/server2.log" "listening on 127.0.0.1:$PORT2"; then
  pass "BACKDROP_PORT overrides the file"
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$PORT2/health")
  kill -INT "$SERVER2"
  timeout 60 tail --pid="$SERVER2" -f /dev/null
  wait "$SERVER2"
  rc=$?
  [ "$code" = 200 ] && [ $rc -eq 0 ] && pass "SIGINT exits 0" || fail "SIGINT (exit $rc, health $code)"
else
  fail "server with BACKDROP_PORT did not start" "$(cat "$WORK/server2.log")"
fi

# --- SIGTERM while hits replayed beneath the router are still being sent to a client that reads slowly: the answers
# go out whole, then the connection closes and the process exits 0. The client pipelines enough repeats of a
# 2048x1953 render that together they are larger than the kernel's socket buffers, so the sending is still under way
# when the server stops.
PORT4=$(free_port)
( cd "$WORK" && exec env BACKDROP_HOST=127.0.0.1 BACKDROP_PORT="$PORT4" "$BIN" serve --config "$ROOT/config.json" ) > "$WORK/server4.log" 2>&1 &
SERVER4=$!
PIDS+=("$SERVER4")
if wait_for_text "$WORK/server4.log" "listening on 127.0.0.1:$PORT4"; then
  out=$(timeout 120 python3 - "$PORT4" "$SERVER4" <<'PY'
import os, re, signal, socket, sys, time, urllib.request
port, pid = int(sys.argv[1]), int(sys.argv[2])
base = f"http://127.0.0.1:{port}"
target = "/background?lat=-33.9&lon=151.2&width=2048&height=1953&blur=0"
whole = urllib.request.urlopen(base + target, timeout=60).read()  # rendered, and kept for replay
buffers = int(open("/proc/sys/net/ipv4/tcp_wmem").read().split()[2]) + 65536
count = buffers // len(whole) + 2
def replayed():
    text = urllib.request.urlopen(base + "/metrics", timeout=10).read().decode()
    found = re.search(r"^backdrop_responses_replayed_total (\S+)", text, re.M)
    return float(found.group(1)) if found else 0.0
slow = socket.socket()
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.settimeout(30)
slow.connect(("127.0.0.1", port))
slow.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode() * count)
deadline = time.monotonic() + 20
while replayed() < count:
    if time.monotonic() > deadline:
        sys.exit(f"{replayed():.0f} of {count} repeats replayed")
    time.sleep(0.05)
os.kill(pid, signal.SIGTERM)
deadline = time.monotonic() + 20
while True:  # the server is stopping once its listener refuses
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        break
    if time.monotonic() > deadline:
        sys.exit("still accepting after SIGTERM")
    time.sleep(0.05)
received = b""
while True:
    chunk = slow.recv(1 << 20)
    if not chunk:
        break
    received += chunk
bodies = []
while received:
    head, _, rest = received.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length: *(\d+)", head).group(1)) if head.startswith(b"HTTP/1.1 200") else -1
    if length < 0 or len(rest) < length:
        break
    bodies.append(rest[:length])
    received = rest[length:]
print(f"{len(bodies)} of {count} answers of {len(whole)} bytes ({count * len(whole)} against {buffers} of buffers)")
sys.exit(0 if len(bodies) == count and all(body == whole for body in bodies) and not received else 1)
PY
  )
  ok=$?
  [ $ok -eq 0 ] || kill -9 "$SERVER4" 2>/dev/null  # whatever went wrong, nothing waits on a server left running
  timeout 60 tail --pid="$SERVER4" -f /dev/null
  kill -0 "$SERVER4" 2>/dev/null && kill -9 "$SERVER4"  # still running a minute after SIGTERM: a failure, not a hang
  wait "$SERVER4"
  rc=$?
  [ $ok -eq 0 ] && [ $rc -eq 0 ] && pass "SIGTERM lets replayed hits still being sent finish whole, then exits 0: $out" \
    || fail "SIGTERM with replays under way (exit $rc): $out" "$(tail -5 "$WORK/server4.log")"
else
  fail "server for the replays under SIGTERM did not start" "$(tail -5 "$WORK/server4.log")"
fi

# --- the disk cache survives SIGKILL in the middle of writes: nothing torn is ever served
CACHE="$WORK/cache"
PORT3=$(free_port)
start_cached() {
  ( cd "$WORK" && exec env BACKDROP_PORT="$PORT3" BACKDROP_CACHE_FOLDER="$CACHE" BACKDROP_LOG_LEVEL=debug "$BIN" serve --config "$ROOT/config.json" ) >> "$WORK/server3.log" 2>&1 &
  SERVER3=$!
  PIDS+=("$SERVER3")
}
start_cached
if wait_for_text "$WORK/server3.log" "listening on 127.0.0.1:$PORT3"; then
  urls=()
  for i in $(seq 1 16); do urls+=("http://127.0.0.1:$PORT3/background?lat=$((i * 3)).5&lon=$((i * 7)).25&width=2048&height=1953&blur=0.$((i % 10))"); done
  for url in "${urls[@]}"; do curl -s -o /dev/null --max-time 120 "$url" & done
  # Kill once some renders have finished (and so are being written) while others are still in flight.
  wait_for_text "$WORK/server3.log" "status=200" 2
  kill -KILL "$SERVER3"
  finished=$(grep -c "status=200" "$WORK/server3.log")
  wait "$SERVER3" 2>/dev/null
  wait 2>/dev/null
  verdict=$(python3 - "$CACHE" <<'PY'
import os, struct, sys, zlib
folder = sys.argv[1]
good = bad = temporary = 0
for name, path in [(n, os.path.join(d, n)) for d, _, names in os.walk(folder) for n in names]:
    data = open(path, "rb").read()
    if name.startswith(".tmp-"):
        temporary += 1
        continue
    key_len, = struct.unpack_from("<H", data, 24)
    meta_len, payload_len, crc = struct.unpack_from("<IQI", data, 28)
    ok = data[:4] == b"BDC1" and len(data) == 48 + key_len + meta_len + payload_len and zlib.crc32(data[48:]) == crc
    good, bad = (good + 1, bad) if ok else (good, bad + 1)
print(good, bad, temporary)
PY
)
  read -r good bad temporary <<<"$verdict"
  # The kill must have landed mid-run: renders had finished (and were being written) and others were still being made.
  if [ "${bad:-1}" = 0 ] && [ "${good:-0}" -ge 1 ] && [ "$finished" -ge 2 ] && [ "$finished" -lt 16 ]; then
    pass "after SIGKILL mid-run ($finished of 16 renders answered): $good complete entries, none torn ($temporary temporary files left)"
  else
    fail "cache entries after SIGKILL: $verdict ($finished of 16 renders answered at the kill)"
  fi
  start_cached
  if wait_for_text "$WORK/server3.log" "listening on 127.0.0.1:$PORT3" 1 && wait_for_text "$WORK/server3.log" "disk cache ready" 1; then
    leftover=$(find "$CACHE" -name '.tmp-*' | wc -l)
    [ "$leftover" = 0 ] && pass "restart removes temporary files left by the kill" || fail "$leftover temporary files after restart"
    invalid=0
    for url in "${urls[@]}"; do
      curl -s -o "$WORK/after.png" --max-time 120 "$url"
      pngcheck -q "$WORK/after.png" >/dev/null 2>&1 || invalid=$((invalid + 1))
    done
    [ "$invalid" = 0 ] && pass "every background served after the restart is a valid PNG" || fail "$invalid invalid PNGs after restart"
    kill -TERM "$SERVER3"
    wait "$SERVER3" 2>/dev/null
  else
    fail "cached server did not restart" "$(tail -5 "$WORK/server3.log")"
  fi
else
  fail "cached server did not start" "$(tail -5 "$WORK/server3.log")"
fi

echo "cli: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
