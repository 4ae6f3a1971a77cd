# Backdrop: `make run` serves on http://127.0.0.1:8080 from config.json; `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= config.json

# C libraries the service links (build and run).
BUILD_PACKAGES := libjpeg-dev libpng-dev libdeflate-dev zlib1g-dev libwebp-dev libavif-dev libaom-dev
# Tools the tests use besides Swift: pngcheck, curl, a headless browser and its driver, Python for selenium/schemathesis,
# node for the reference ThumbHash decoder, libcurl4 for FoundationNetworking (BackdropKit's tests on Linux), libvips42
# for the crop oracle (pyvips' attention smartcrop), opencv-data for the face cascade compiled in (Tools/face_model.py).
TEST_PACKAGES := pngcheck curl python3 python3-venv chromium chromium-driver nodejs libcurl4 libvips42 opencv-data
# The container check: a Debian root filesystem, a test CA, a network namespace.
CONTAINER_PACKAGES := debootstrap openssl iproute2
# The cluster check and benchmark: a real PostgreSQL and nginx on loopback, pgrep to freeze PostgreSQL.
CLUSTER_PACKAGES := postgresql nginx-light procps
# The Kubernetes check: kubectl (its kustomize renders the manifests), nginx for the router, unshare for its /etc/hosts.
KUBERNETES_PACKAGES := kubectl nginx-light util-linux
TEST_VENV ?= .build-venv
TEST_OUTPUT ?= test-output
# One release build for everything (issue 61): optimised, with testing enabled so that the Swift tests (`@testable
# import`) run on the very code the service, the process checks, the container and the bench run. Swift's runtime is
# linked dynamically because Swift Testing has no static library (a static binary would need a second build of every
# package); the container copies the runtime's libraries the binary links (Dockerfile).
RELEASE_FLAGS := -c release -Xswiftc -enable-testing
RELEASE_BIN := .build/release/backdrop
# The anchor pipelines (libvips, Pillow) that `make bench` measures beside Backdrop.
BENCH_PACKAGES := libvips-tools libvips-dev python3-venv python3-dev wrk nginx-light
BENCH_VENV ?= /tmp/backdrop-anchors/venv
ANCHORS ?= $(abspath ../shared/bench/anchors)

# The scanline deflate's proof under AddressSanitizer and UndefinedBehaviorSanitizer (the C sources and the proof alone,
# built by the toolchain's clang), and libFuzzer on it from the committed corpus of odd shapes.
CLANG ?= clang
DEFLATE_SOURCES := Sources/CPNG/*.c Sources/CPixels/*.c Tests/CDeflateProof/proof.c
DEFLATE_FLAGS := -std=c11 -g -fno-omit-frame-pointer -fuse-ld=lld -ISources/CPNG/include -ISources/CPixels/include \
	-ITests/CDeflateProof/include
DEFLATE_LIBS := -lpng16 -ldeflate -lz -lm
# The seed the Swift suite's round trip uses too (ScanlineDeflateTests), the streams and PNGs it makes.
DEFLATE_PROOF := 20261125 4000 2000
FUZZ_SECONDS ?= 60

.PHONY: format run build release test test-build test-beside-build test-pixels test-processes test-sanitized fuzz container-rootfs test-container test-cluster test-kubernetes bench deps test-deps bench-deps clean

deps:
	@Tools/ensure-packages.sh $(BUILD_PACKAGES)

test-deps: deps
	@Tools/ensure-packages.sh $(TEST_PACKAGES)
	@[ $(TEST_VENV)/installed -nt Tests/requirements.txt ] || (python3 -m venv $(TEST_VENV) && $(TEST_VENV)/bin/pip install -q -r Tests/requirements.txt \
		&& touch $(TEST_VENV)/installed)

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product backdrop

run: build
	.build/release/backdrop serve --config $(CONFIG)

# The Swift sources as .swift-format (Hummingbird's settings) lays them out; make test checks it.
format:
	$(SWIFT) format --in-place --recursive Sources Tests/BackdropTests Benchmarks BackdropKit/Sources BackdropKit/Tests

# The release build with the tests, and beside it lint, the layout rules, the oracles, the generated data's stamps, the sanitized deflate
# proof and the container's root filesystem; the Swift tests; then, on the release binary, two lanes at once of the
# checks that measure no time: the placeholders read by the reference decoders and the OpenAPI document against the
# live service in one; in the other legibility, the binary driven as a process, the demo page in Chromium, BackdropKit
# (the Swift client, its own package in BackdropKit/) against live services, traces and deploy/kubernetes; then alone,
# the checks that time answers: the container's runtime stage (test-container), replicas sharing through PostgreSQL
# behind nginx (test-cluster), hostile and unlucky clients (early closes, many renders, one client flooding).
test:
	@Tools/stage.sh --reset
	Tools/stage.sh packages $(MAKE) --no-print-directory test-deps
	$(MAKE) --no-print-directory -j2 test-build test-beside-build
	Tools/stage.sh "Swift tests" $(SWIFT) test $(RELEASE_FLAGS) --skip-build
	$(MAKE) --no-print-directory -j2 test-pixels test-processes
	Tools/stage.sh "container" $(MAKE) --no-print-directory test-container
	Tools/stage.sh "cluster" $(MAKE) --no-print-directory test-cluster
	Tools/stage.sh "hostile clients" python3 Tests/cli/hostile_clients.py $(RELEASE_BIN)
	Tools/stage.sh "unlucky clients" python3 Tests/cli/unlucky_clients.py $(RELEASE_BIN)
	@Tools/stage.sh --table

# The one release build, the tests' targets included (the stage that takes most of `make test`).
test-build: deps
	@Tools/stage.sh "release build" $(SWIFT) build $(RELEASE_FLAGS) --build-tests

# What runs beside the build, on the core it leaves (each of these takes seconds). Each stage's output is printed when
# it ends (STAGE_OUTPUT), so that lanes that run at once do not interleave.
test-beside-build: test-deps
	@STAGE_OUTPUT=buffered Tools/stage.sh "lint" $(SWIFT) format lint --strict --recursive Sources Benchmarks BackdropKit/Sources
	@STAGE_OUTPUT=buffered Tools/stage.sh "layout" python3 Tests/layout/check_layout.py --self-test
	@STAGE_OUTPUT=buffered Tools/stage.sh "sun oracle" $(TEST_VENV)/bin/python Tests/sun/astral_oracle.py --check
	@STAGE_OUTPUT=buffered Tools/stage.sh "zone oracle" $(TEST_VENV)/bin/python Tests/zones/timezonefinder_oracle.py --check
	@STAGE_OUTPUT=buffered Tools/stage.sh "zone grid" $(TEST_VENV)/bin/python Tools/make_time_zones.py --check
	@STAGE_OUTPUT=buffered Tools/stage.sh "face model" python3 Tools/face_model.py --check
	@STAGE_OUTPUT=buffered Tools/stage.sh "sanitized deflate proof" $(MAKE) --no-print-directory test-sanitized
	@STAGE_OUTPUT=buffered Tools/stage.sh "container root filesystem" $(MAKE) --no-print-directory container-rootfs

# The placeholders read by their reference decoders (the longest check) and the OpenAPI document, one lane.
test-pixels: test-deps
	@STAGE_OUTPUT=buffered Tools/stage.sh "placeholders" $(TEST_VENV)/bin/python Tests/placeholders/check_placeholders.py $(RELEASE_BIN) $(TEST_OUTPUT)
	@STAGE_OUTPUT=buffered Tools/stage.sh "openapi" $(TEST_VENV)/bin/python Tests/api/test_openapi.py $(RELEASE_BIN) $(TEST_OUTPUT)

# Legibility and the checks of processes and clients that time nothing (the docs' commands run as written among them),
# the other lane.
test-processes: test-deps
	@STAGE_OUTPUT=buffered Tools/stage.sh "legibility" $(TEST_VENV)/bin/python Tests/legibility/check_legibility.py $(RELEASE_BIN) $(TEST_OUTPUT)
	@STAGE_OUTPUT=buffered Tools/stage.sh "cli" Tests/cli/run.sh $(RELEASE_BIN)
	@STAGE_OUTPUT=buffered Tools/stage.sh "docs" python3 Tests/docs/check_commands.py $(RELEASE_BIN)
	@STAGE_OUTPUT=buffered Tools/stage.sh "browser" $(TEST_VENV)/bin/python Tests/browser/test_demo.py $(RELEASE_BIN) $(TEST_OUTPUT)
	@STAGE_OUTPUT=buffered Tools/stage.sh "backdropkit" $(TEST_VENV)/bin/python Tests/backdropkit/run.py $(RELEASE_BIN) $(TEST_OUTPUT)
	@STAGE_OUTPUT=buffered Tools/stage.sh "tracing" $(TEST_VENV)/bin/python Tests/tracing/check_traces.py $(RELEASE_BIN) $(TEST_OUTPUT)
	@STAGE_OUTPUT=buffered Tools/stage.sh "kubernetes" $(MAKE) --no-print-directory test-kubernetes

test-sanitized: deps
	@mkdir -p .build/sanitized
	$(CLANG) $(DEFLATE_FLAGS) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all $(DEFLATE_SOURCES) \
		Tests/deflate/sanitized.c $(DEFLATE_LIBS) -o .build/sanitized/deflate-proof
	time .build/sanitized/deflate-proof $(DEFLATE_PROOF)

# FUZZ_SECONDS of libFuzzer (seed 1) on the scanline deflate and its three decoders, sanitizers on, starting from
# Tests/deflate/corpus; what it finds new goes to .build/fuzz/corpus, a crash to .build/fuzz/crash-*.
fuzz: deps
	@mkdir -p .build/fuzz/corpus
	$(CLANG) $(DEFLATE_FLAGS) -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(DEFLATE_SOURCES) \
		Tests/deflate/fuzz.c $(DEFLATE_LIBS) -o .build/fuzz/deflate-fuzz
	.build/fuzz/deflate-fuzz -seed=1 -max_total_time=$(FUZZ_SECONDS) -max_len=300000 -artifact_prefix=.build/fuzz/ \
		.build/fuzz/corpus Tests/deflate/corpus

# The release binary, as the Dockerfile's build stage makes it.
release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product backdrop

# The Debian 12 root filesystem the container check builds the runtime stage on (debootstrap, cached).
container-rootfs:
	@Tools/ensure-packages.sh $(CONTAINER_PACKAGES)
	python3 Tests/docker/run_runtime_stage.py --rootfs-only

# The Dockerfile against what that binary links, then its runtime stage built from Debian 12 by debootstrap and run.
test-container: release container-rootfs
	python3 Tests/docker/check_dockerfile.py $(RELEASE_BIN)
	python3 Tests/docker/run_runtime_stage.py $(RELEASE_BIN)

# deploy/kubernetes rendered by kubectl's kustomize, validated against the API schemas, cross-checked against the
# Dockerfile and the service, and its router run in front of stand-in replicas and of live release replicas (no
# cluster needed).
test-kubernetes: release test-deps
	@Tools/ensure-packages.sh $(KUBERNETES_PACKAGES)
	$(TEST_VENV)/bin/python Tests/kubernetes/check_manifests.py $(RELEASE_BIN) $(TEST_OUTPUT)

# Three replicas of the release binary, a throwaway PostgreSQL (run as an unprivileged user) and nginx with
# deploy/nginx.conf, all on loopback and stopped at the end.
test-cluster: release test-deps
	@Tools/ensure-packages.sh $(CLUSTER_PACKAGES)
	$(TEST_VENV)/bin/python Tests/cluster/cluster_checks.py $(RELEASE_BIN)

bench-deps: deps
	@Tools/ensure-packages.sh $(BENCH_PACKAGES) $(CLUSTER_PACKAGES)
	@[ -x $(BENCH_VENV)/bin/python ] || (python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install -q -r $(ANCHORS)/requirements.txt)

bench: bench-deps test-deps
	$(MAKE) --no-print-directory fuzz
	$(SWIFT) build $(RELEASE_FLAGS) --product backdrop-bench
	$(SWIFT) build $(RELEASE_FLAGS) --product backdrop
	$(SWIFT) build $(RELEASE_FLAGS) --product nio-hit
	$(BENCH_VENV)/bin/python Benchmarks/bench.py --anchors $(ANCHORS) --bench .build/release/backdrop-bench
	$(BENCH_VENV)/bin/python Benchmarks/formats.py --anchors $(ANCHORS) --bench .build/release/backdrop-bench
	$(BENCH_VENV)/bin/python Benchmarks/fidelity.py --bench .build/release/backdrop-bench $(ANCHORS)/photos/*.jpg StockPhotos/*.jpg
	$(BENCH_VENV)/bin/python Benchmarks/avif_study.py --anchors $(ANCHORS) --bench .build/release/backdrop-bench
	.build/release/backdrop-bench --ranking $(ANCHORS)/photos/*.jpg StockPhotos/*.jpg
	python3 Benchmarks/cold_path.py --backdrop .build/release/backdrop --photos $(ANCHORS)/photos
	$(BENCH_VENV)/bin/python Benchmarks/new_place.py --backdrop .build/release/backdrop
	$(BENCH_VENV)/bin/python Benchmarks/new_place.py --backdrop .build/release/backdrop --assessed 0
	python3 Benchmarks/cache_hit.py --backdrop .build/release/backdrop --nio .build/release/nio-hit --anchors $(ANCHORS)
	python3 Benchmarks/tracing.py --backdrop .build/release/backdrop
	python3 Benchmarks/overload.py --backdrop .build/release/backdrop
	python3 Benchmarks/cache_flood.py --backdrop .build/release/backdrop
	$(BENCH_VENV)/bin/python Benchmarks/density.py --anchors $(ANCHORS) --bench .build/release/backdrop-bench
	python3 Benchmarks/memory.py --backdrop .build/release/backdrop --photos $(ANCHORS)/photos
	python3 Tests/cli/hostile_clients.py .build/release/backdrop --bench
	python3 Benchmarks/cluster.py --backdrop .build/release/backdrop --photos $(ANCHORS)/photos
	python3 Benchmarks/cluster.py --backdrop .build/release/backdrop --photos $(ANCHORS)/photos --size 64x64
	$(TEST_VENV)/bin/python Tests/legibility/check_legibility.py .build/release/backdrop $(TEST_OUTPUT) $(ANCHORS)/photos/*.jpg

clean:
	rm -rf .build .build-container .build-venv $(TEST_OUTPUT)
