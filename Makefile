# kodo — developer entry points. `make demo` and `make test` are the whole quick start.
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
# Parallel build jobs; the machines this runs on have 2 cores.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SWIFT_BUILD_FLAGS ?= -j $(JOBS)

.PHONY: all deps build release test demo lint format install bench clean

all: build

# Install the C libraries KodoCore links (libcurl, libcrypto) when pkg-config can't find them.
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	if command -v pkg-config >/dev/null 2>&1; then \
	  pkg-config --exists libcurl || missing="$$missing libcurl4-openssl-dev"; \
	  pkg-config --exists openssl || missing="$$missing libssl-dev"; \
	fi; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	case " $$missing " in *" pkg-config "*) missing="$$missing libcurl4-openssl-dev libssl-dev";; esac; \
	if [ "$$(uname -s)" = Darwin ]; then \
	  echo "kodo: missing:$$missing. Run: brew install curl openssl@3 pkg-config" >&2; \
	  echo "      and export PKG_CONFIG_PATH=\"$$(brew --prefix 2>/dev/null)/opt/curl/lib/pkgconfig:$$(brew --prefix 2>/dev/null)/opt/openssl@3/lib/pkgconfig\"" >&2; \
	  exit 1; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "kodo: missing:$$missing. Install the libcurl (OpenSSL flavour) and OpenSSL development packages and pkg-config." >&2; exit 1; \
	fi; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	echo "kodo: installing$$missing"; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq pkg-config libcurl4-openssl-dev libssl-dev >/dev/null || \
	  { echo "kodo: apt-get failed; install by hand: apt-get install -y pkg-config libcurl4-openssl-dev libssl-dev" >&2; exit 1; }

build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS)

test: deps
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_TEST_FLAGS)

demo: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	@./scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/kodo" "$(DESTDIR)$(PREFIX)/bin/kodo"
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/kodo-emulator" "$(DESTDIR)$(PREFIX)/bin/kodo-emulator"

clean:
	rm -rf .build
