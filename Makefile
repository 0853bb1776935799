# Set-up, demo and tests on a Debian/Ubuntu machine with Swift 6 installed.
SWIFT ?= swift
APT_PACKAGES := pkg-config libcurl4-openssl-dev libpng-dev libjpeg-dev libgif-dev libssl-dev
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
NSE := .build/release/nse

PREFIX ?= /usr/local

.PHONY: deps build demo test bench clean install

## Installs the apt packages that are missing (libcurl, libpng, libjpeg-turbo, giflib headers).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c release --product nse

## Runs every bundled sample through the emulator; the samples include deliberate failures, so exit 1 is expected.
demo: build
	@$(NSE) process samples/payloads/* --media samples/media --time-budget 5 --title-suffix " [modified]" --out out/demo --format text; \
	status=$$?; echo; echo "nse exited $$status (1 = some samples fail verification, as intended); results in out/demo/"; \
	[ $$status -le 1 ]

test: deps
	$(SWIFT) test

## Measures `nse batch` (release build) against the decode floor and a requests + Pillow pipeline; not part of CI.
bench: deps
	$(SWIFT) build -c release --product nse
	$(SWIFT) build -c release --product nse-bench
	@python3 -c "import requests, PIL" 2>/dev/null || python3 -m pip install --quiet requests pillow
	.build/release/nse-bench --nse $(NSE) --python Benchmarks/python_pipeline.py

## Copies the release binary to $(PREFIX)/bin (default /usr/local/bin).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(NSE) $(DESTDIR)$(PREFIX)/bin/nse

clean:
	rm -rf .build out
