# kodo — developer entry points. `make demo` and `make test` are the whole quick start.
SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
# Parallel build jobs; the machines this runs on have 2 cores.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SWIFT_BUILD_FLAGS ?= -j $(JOBS)
# Release builds link the Swift runtime and Foundation statically on Linux: a third less start-up
# time (no dozen shared libraries to load and bind) for every `kodo` a script runs. Cross-module
# optimisation lets the hot paths that cross the library boundaries (the JSON reader in
# StorageCore under KodoCore's decoders, the escapers under the CLI's renderers) be specialised
# and inlined as if they were one module.
RELEASE_FLAGS ?= -c release $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib) \
  -Xswiftc -cross-module-optimization
# The official Qiniu Python SDK, for `make bench` only (never for the product or the tests).
BENCH_VENV ?= bench/.venv
BENCH_FLAGS ?=

.PHONY: all deps build release test demo lint format fuzz install bench bench-deps sdk-check sdk-deps clean

all: build

# Install the C libraries the package links (libcurl, libcrypto; libxml2 for the tests that
# measure OSSCore's XML reader against it) when pkg-config can't find them, and the programs the
# tests drive: tmux (the browser), bash, zsh and fish (the completion scripts).
deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	if command -v pkg-config >/dev/null 2>&1; then \
	  pkg-config --exists libcurl || missing="$$missing libcurl4-openssl-dev"; \
	  pkg-config --exists openssl || missing="$$missing libssl-dev"; \
	  pkg-config --exists libxml-2.0 || missing="$$missing libxml2-dev"; \
	fi; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v zsh >/dev/null 2>&1 || missing="$$missing zsh"; \
	command -v fish >/dev/null 2>&1 || missing="$$missing fish"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	case " $$missing " in *" pkg-config "*) missing="$$missing libcurl4-openssl-dev libssl-dev libxml2-dev";; esac; \
	if [ "$$(uname -s)" = Darwin ]; then \
	  echo "kodo: missing:$$missing. Run: brew install curl openssl@3 libxml2 pkg-config tmux zsh fish" >&2; \
	  echo "      and export PKG_CONFIG_PATH=\"$$(brew --prefix 2>/dev/null)/opt/curl/lib/pkgconfig:$$(brew --prefix 2>/dev/null)/opt/openssl@3/lib/pkgconfig:$$(brew --prefix 2>/dev/null)/opt/libxml2/lib/pkgconfig\"" >&2; \
	  exit 1; \
	fi; \
	if ! command -v apt-get >/dev/null 2>&1; then \
	  echo "kodo: missing:$$missing. Install the libcurl (OpenSSL flavour), OpenSSL and libxml2 development packages, pkg-config, tmux, zsh and fish." >&2; exit 1; \
	fi; \
	SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	echo "kodo: installing$$missing"; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || \
	  { echo "kodo: apt-get failed; install by hand: apt-get install -y$$missing" >&2; exit 1; }

build: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

release: deps
	@# The two executables only: the test-support target needs swift-testing, which a release
	@# build of the whole package does not have.
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product kodo
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS) --product kodo-emulator

# A crash in the test process prints only the crashed thread's frames, without registers or the
# image list, so that the end of a CI log (all a CI summary keeps) names where it crashed.
TEST_BACKTRACE ?= enable=yes,threads=crashed,registers=none,images=none

test: deps
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	SWIFT_BACKTRACE='$(TEST_BACKTRACE)' $(SWIFT) test --skip-build $(SWIFT_TEST_FLAGS)

demo: deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)
	@./scripts/demo.sh "$$($(SWIFT) build --show-bin-path)"

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz
	scripts/lint-rules.sh

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz

# libFuzzer over the answer decoders and text codecs, for FUZZ_SECONDS (not part of `make test`).
# Needs a toolchain with libFuzzer (swift.org's Linux toolchains; Xcode's has none). The harness
# is compiled together with the pure sources of StorageCore and KodoCore (their module imports
# removed) to reach the internal decoders. Findings are written as .build/fuzz/crash-* (the Swift
# backtracer is off so libFuzzer can write them); replay one with `.build/fuzz/kodo-fuzz FILE`.
SWIFTC ?= swiftc
FUZZ_SECONDS ?= 60
FUZZ_SOURCES = $(wildcard Sources/StorageCore/Codecs/*.swift Sources/StorageCore/Model/*.swift \
  Sources/StorageCore/Errors/*.swift Sources/StorageCore/Text/*.swift Sources/KodoCore/Model/*.swift) \
  Sources/KodoCore/Encoding/EncodedEntryURI.swift

fuzz:
	rm -rf .build/fuzz/src && mkdir -p .build/fuzz/corpus .build/fuzz/src
	for file in $(FUZZ_SOURCES); do \
	  sed -E '/^(public |package )?import (StorageCore|KodoCore)$$/d' "$$file" > ".build/fuzz/src/$$(echo $$file | tr / _)"; \
	done
	$(SWIFTC) -sanitize=fuzzer -parse-as-library -O -g -module-name KodoFuzz -package-name kodo \
	  .build/fuzz/src/*.swift Fuzz/KodoFuzz.swift -o .build/fuzz/kodo-fuzz
	cp Fuzz/seeds/* .build/fuzz/corpus/
	cd .build/fuzz && SWIFT_BACKTRACE=enable=no ./kodo-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=../../Fuzz/kodo.dict corpus

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/kodo" "$(DESTDIR)$(PREFIX)/bin/kodo"
	install -m 0755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/kodo-emulator" "$(DESTDIR)$(PREFIX)/bin/kodo-emulator"

# The Python SDK in a local, git-ignored virtualenv (python3-venv from apt when it is missing).
bench-deps:
	@./scripts/ensure-venv.sh "$(BENCH_VENV)" qiniu,oss2 "make bench" qiniu oss2

# kodo against the official Python SDK on one emulator; writes bench/results.md. Not part of test.
bench: release bench-deps
	python3 bench/run.py --bin "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" \
	  --python "$(BENCH_VENV)/bin/python" $(BENCH_FLAGS)

# The official SDKs (oss2, alibabacloud-oss-v2, qiniu) in a local, git-ignored virtualenv, for
# `make sdk-check` only (never for the product or `make test`).
SDK_VENV ?= bench/.venv-sdk

sdk-deps:
	@./scripts/ensure-venv.sh "$(SDK_VENV)" oss2,alibabacloud_oss_v2,qiniu "make sdk-check" oss2 alibabacloud-oss-v2 qiniu

# The official SDKs, unmodified, against the emulator: Aliyun's oss2 and alibabacloud-oss-v2
# (V1 and V4) on `--protocol oss`, Qiniu's qiniu on the default Kodo protocol. Not part of test.
sdk-check: deps sdk-deps
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product kodo-emulator
	"$(SDK_VENV)/bin/python" scripts/oss-sdk-check.py "$$($(SWIFT) build --show-bin-path)/kodo-emulator"
	"$(SDK_VENV)/bin/python" scripts/sdk-crosscheck.py "$$($(SWIFT) build --show-bin-path)/kodo-emulator"

clean:
	rm -rf .build
