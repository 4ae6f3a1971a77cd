# Backdrop: `make run` serves on http://127.0.0.1:8080 from config.json; `make test` runs every test.
SHELL := /bin/bash
SWIFT ?= swift
CONFIG ?= config.json

# C libraries the service links (build and run).
BUILD_PACKAGES := libjpeg-dev libpng-dev libdeflate-dev zlib1g-dev
# Tools the tests use besides Swift.
TEST_PACKAGES := pngcheck curl python3
# The anchor pipelines (libvips, Pillow) that `make bench` measures beside Backdrop.
BENCH_PACKAGES := libvips-tools libvips-dev python3-venv python3-dev wrk nginx-light
BENCH_VENV ?= /tmp/backdrop-anchors/venv
ANCHORS ?= $(abspath ../shared/bench/anchors)

.PHONY: run build test bench deps test-deps bench-deps clean

deps:
	@Tools/ensure-packages.sh $(BUILD_PACKAGES)

test-deps: deps
	@Tools/ensure-packages.sh $(TEST_PACKAGES)

build: deps
	$(SWIFT) build -c release --product backdrop

run: build
	.build/release/backdrop serve --config $(CONFIG)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test
	Tests/cli/run.sh "$$($(SWIFT) build --show-bin-path)/backdrop"

bench-deps: deps
	@Tools/ensure-packages.sh $(BENCH_PACKAGES)
	@[ -x $(BENCH_VENV)/bin/python ] || (python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install -q -r $(ANCHORS)/requirements.txt)

bench: bench-deps
	$(SWIFT) build -c release --product backdrop-bench
	$(SWIFT) build -c release --product backdrop
	$(BENCH_VENV)/bin/python Benchmarks/bench.py --anchors $(ANCHORS) --bench .build/release/backdrop-bench
	python3 Benchmarks/cold_path.py --backdrop .build/release/backdrop --photos $(ANCHORS)/photos
	python3 Benchmarks/cache_hit.py --backdrop .build/release/backdrop --anchors $(ANCHORS)

clean:
	rm -rf .build
