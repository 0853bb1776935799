# Set-up, demo and tests on a Debian/Ubuntu machine with Swift 6 installed.
SWIFT ?= swift
APT_PACKAGES := pkg-config curl libcurl4-openssl-dev libpng-dev libjpeg-dev libgif-dev libssl-dev libisal-dev libjemalloc-dev patchelf
# The browser the tests load the HTML report in (and its colour emoji font, for the screenshot): test-only.
BROWSER_PACKAGES := chromium fonts-noto-color-emoji
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
NSE := .build/release/nse
NSE_SERVE := .build/release/nse-serve

PREFIX ?= /usr/local

.PHONY: deps deps-browser deps-python build build-nse demo test test-asan test-tsan fuzz bench bench-serve-memory bench-serve-scale clean install report-screenshot serve-screenshot

## Installs the apt packages that are missing (libcurl, libpng, libjpeg-turbo, giflib headers; jemalloc, which nse-serve uses).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

## Installs chromium for the HTML report's browser tests (make test runs them; CI installs it this way).
deps-browser:
	@missing=$$(for p in $(BROWSER_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

## Both programs: `nse`, and `nse-serve` beside it, which `nse serve` runs (docs/serve.md); each built as below.
build: build-nse
	$(SWIFT) build -c release --product nse-serve --static-swift-stdlib
	patchelf --remove-needed libcurl.so.4 $(NSE_SERVE)

## `nse` alone, all `make demo` and `make bench` run: nse-serve compiles SwiftNIO and two copies of BoringSSL.
## The Swift runtime and Foundation are linked in: resolving their symbols at every start took half of a short
## `nse process` run's CPU (the dynamic loader alone, about 12 ms).
## libcurl is loaded when first used (Sources/CNSE/curl_library.c), not at start: with the 27 libraries it brings,
## it was half of what remained of a start. The linker keeps it among the libraries loaded at start, since
## FoundationNetworking asks for -lcurl before any option can say "only if needed"; patchelf takes it out.
build-nse: deps
	$(SWIFT) build -c release --product nse --static-swift-stdlib
	patchelf --remove-needed libcurl.so.4 $(NSE)

## Runs every bundled sample through the emulator; the samples include deliberate failures, so exit 1 is expected.
demo: build-nse
	@$(NSE) process samples/payloads/* --media samples/media --time-budget 5 --title-suffix " [modified]" --out out/demo --format text; \
	status=$$?; echo; echo "nse exited $$status (1 = some samples fail verification, as intended); results in out/demo/"; \
	[ $$status -le 1 ]

## The Python clients `nse serve`'s tests send with (Tests/NSEServerTests/Clients): Google's firebase-admin, and
## httpx with HTTP/2 and PyJWT for an APNs provider token, as backends use them; django-push-notifications (with
## Django) for `--proxy`'s tests (Debian's python3-django-push-notifications posts to FCM's retired legacy API);
## jsonschema and PyYAML check the server against docs/openapi.yaml; aioapns sends APNs through `--proxy`;
## websocket-client drives chromium through its DevTools protocol for the phones page's tests.
PYTHON_PACKAGES := firebase-admin 'httpx[http2]' PyJWT cryptography 'django-push-notifications[fcm]' jsonschema PyYAML aioapns websocket-client
deps-python:
	@python3 -c "import firebase_admin, httpx, h2, jwt, cryptography, django, push_notifications, jsonschema, yaml, aioapns, websocket" 2>/dev/null || python3 -m pip install --quiet $(PYTHON_PACKAGES)

test: deps deps-browser deps-python
	$(SWIFT) test

## Regenerates docs/report-screenshot.png (the README's picture of the HTML report) from the bundled samples.
SCREENSHOT_SAMPLES := webp missing-mutable-content jpeg-ok png-ok gif-animated-ok fcm-v1-message
report-screenshot: build-nse deps-browser
	@mkdir -p out/report-screenshot
	-$(NSE) batch $(SCREENSHOT_SAMPLES:%=samples/payloads/%.json) --media samples/media --app-name Shop --quiet \
	  --html out/report-screenshot/report.html
	chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=out/report-screenshot/profile \
	  --window-size=1280,1380 --screenshot=$(CURDIR)/docs/report-screenshot.png file://$(CURDIR)/out/report-screenshot/report.html

## Regenerates docs/serve-screenshot.png (the README's picture of `nse serve`'s phones page): nse-serve with
## samples/serve/devices.json and samples/media, a few bundled pushes, the page drawn by headless chromium.
## `make serve-screenshot NSE_SERVE=.build/debug/nse-serve SERVE_BUILD=` draws it with a debug build instead.
SERVE_BUILD ?= build
serve-screenshot: $(SERVE_BUILD) deps-browser deps-python
	python3 Tests/NSEServerTests/Clients/serve_screenshot.py $(NSE_SERVE) docs/serve-screenshot.png 1280x1000

## The whole suite under AddressSanitizer / ThreadSanitizer, each in a build folder of its own (not part of `make test`).
## One test at a time: run side by side, the sanitized CPU-bound tests starve the hang-guarded ones of the two
## cooperative threads, and those report the wait as a hang.
## Suppressions (Tests/Sanitizers/): only reports shown to come from Foundation, XCTest, Synchronization or
## swift-argument-parser, each with its proof; they apply to the `nse` processes the CLI tests start too, which
## must not print a suppression report on their stderr.
test-asan: deps deps-browser
	LSAN_OPTIONS="suppressions=$(CURDIR)/Tests/Sanitizers/lsan-suppressions.txt print_suppressions=0 $$LSAN_OPTIONS" \
	  $(SWIFT) test --sanitize=address --scratch-path .build-asan --no-parallel

test-tsan: deps deps-browser
	TSAN_OPTIONS="suppressions=$(CURDIR)/Tests/Sanitizers/tsan-suppressions.txt $$TSAN_OPTIONS" \
	  $(SWIFT) test --sanitize=thread --scratch-path .build-tsan --no-parallel

## Runs every fuzz target (Swift: payload, fcm, lint, media; then the C checkers' through Fuzz/run-c.sh) for
## FUZZ_SECONDS each, printing executions and executions per second per target.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Fuzz/run.sh

## Measures `nse batch` (release build) against the decode floor and a requests + Pillow pipeline; not part of CI.
bench: build-nse
	$(SWIFT) build -c release --product nse-bench
	@python3 -c "import requests, PIL" 2>/dev/null || python3 -m pip install --quiet requests pillow
	.build/release/nse-bench --nse $(NSE) --python Benchmarks/python_pipeline.py

## How much one `nse serve` holds (Benchmarks/serve_scale.py, the release nse-serve): 1,000 devices and 1,000,000
## text-only APNs pushes over one HTTP/2 connection (h2load), a tenth of them to one device; its memory every 100,000,
## the journal and its index on disk, pushes/s and CPU seconds; then the control API's reads (?limit=100000, a message
## by apns-id, the events replay with Last-Event-ID) and a restart. Not CI. SCALE_ARGS="--total 200000 --devices 100".
bench-serve-scale: build deps-python
	@dpkg -s nghttp2-client >/dev/null 2>&1 || { echo "Installing: nghttp2-client"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client; }
	python3 Benchmarks/serve_scale.py --serve $(NSE_SERVE) $(SCALE_ARGS)

## The journal's fsync'd appends per second alone (nse-bench --journal-appends), then bench-serve-scale. Not CI.
bench-serve-memory: build deps-python
	$(SWIFT) build -c release --product nse-bench
	.build/release/nse-bench --journal-appends 200000 --journal-concurrency 100
	$(MAKE) bench-serve-scale

## Image pushes through `nse serve` (Benchmarks/serve_images.py): the batch's shared workload (1,000 pushes over 120
## images on a loopback server) sent over h2c, with shared downloads and with --no-shared-downloads, in turns; how
## long until every push is delivered and how many image requests were made. Not CI. SERVE_IMAGES_ARGS="--rounds 5".
.PHONY: bench-serve-images
bench-serve-images: build deps-python
	@python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet pillow
	python3 Benchmarks/serve_images.py --nse $(NSE) $(SERVE_IMAGES_ARGS)

## `nse serve` beside a bare SwiftNIO server (the ceiling, Sources/nse-serve-ceiling) under h2load (nghttp2-client):
## APNs over one h2c connection with 100 streams, FCM over 64 HTTP/1.1 keep-alive connections; pushes/s, p50/p99 and
## the ratio, interleaved rounds, medians (Benchmarks/serve_bench.py; BENCH_SERVE_ARGS="--rounds 5 -n 50000"). Not CI.
.PHONY: bench-serve
bench-serve: build
	@dpkg -s nghttp2-client >/dev/null 2>&1 || { echo "Installing: nghttp2-client"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nghttp2-client; }
	$(SWIFT) build -c release --product nse-serve-ceiling --static-swift-stdlib
	python3 Benchmarks/serve_bench.py --nse $(NSE) --ceiling .build/release/nse-serve-ceiling $(BENCH_SERVE_ARGS)

## Copies both release binaries to $(PREFIX)/bin (default /usr/local/bin): `nse serve` runs the nse-serve beside nse.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(NSE) $(DESTDIR)$(PREFIX)/bin/nse
	install -m 755 $(NSE_SERVE) $(DESTDIR)$(PREFIX)/bin/nse-serve

clean:
	rm -rf .build .build-fuzz .build-asan .build-tsan out

# ---- C fuzzing (images branch): libFuzzer targets for the PNG, JPEG and GIF checkers ---------------------------
# Kept in its own block so the `make fuzz` driver can call it: `make fuzz-c FUZZ_SECONDS=600`.
FUZZ_SECONDS ?= 60

.PHONY: fuzz-c
## Fuzzes the C image checkers (Fuzz/c) with libFuzzer, FUZZ_SECONDS each; inputs that fail land in Fuzz/regressions/.
fuzz-c: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run-c.sh
# ---- end of C fuzzing -------------------------------------------------------------------------------------------
