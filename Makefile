# SPDX-License-Identifier: MIT
# KeychainKit — build, test, install.
#
#   make demo       build, then store, read, observe and remove a secret from
#                   C, Python and the command line, narrated
#   make test       install missing packages (as root), build, and run every
#                   suite (Swift, C, Python, the tool, git, Docker, portal,
#                   hostile fake, keychainkitd, a Swift package using this one, packaging,
#                   ABI, README, hygiene, sanitizers), each on private
#                   servers it starts itself: gnome-keyring, KWallet,
#                   KeePassXC, the hostile fake (also as oo7-daemon,
#                   ksecretd and KeePassXC's idle lock), the kernel keyring,
#                   a keyring file and memory
#   make lib        build libkeychainkit.so into build/lib
#   make cli        build the keychainkit tool and keychainkitd (the Secret
#                   Service of our own) into build/bin
#   make bench      compare against libsecret, secret-tool and Python keyring
#                   in one run (table and build/bench/results.json)
#   make check-extended
#                   the slower reliability checks: the Swift suite under
#                   ThreadSanitizer and a bounded libFuzzer run (FUZZ_SECONDS)
#   make fuzz-campaign
#                   libFuzzer on an instrumented library, FUZZ_RUNS inputs a
#                   harness (10 million); merges new inputs into the corpora
#   make wheel      build the Python package as a manylinux wheel in build/
#                   that carries libkeychainkit.so, libsystemd and libgcrypt
#                   (needs neither the toolchain nor an installed library
#                   where it is pip-installed)
#   make sdist      the Python package's source distribution in build/ (no
#                   library inside: it uses the installed one)
#   make man        the manual pages into build/man, from the programs' --help
#                   and the header's doc comments
#   make install    install the library, header, pkg-config file, tool,
#                   keychainkitd and its systemd user unit (not enabled), manual
#                   pages and bash completion (PREFIX=/usr/local, DESTDIR= for
#                   staging) as built by make lib cli, without building
#                   again: sudo needs no swift
#   make uninstall  remove what make install installed
#   make deb        the Debian packages (libkeychainkit0, libkeychainkit-dev,
#                   keychainkit, keychainkitd, python3-keychainkit) into build/deb/
#   make deps       install missing Debian packages

SWIFT    ?= swift
PREFIX   ?= /usr/local
LIBDIR   ?= lib
DESTDIR  ?=
HARNESS  := scripts/with-secret-service.sh

VERSION_MAJOR := $(shell sed -n 's/^\#define KK_VERSION_MAJOR \([0-9]*\)/\1/p' include/keychainkit.h)
VERSION_MINOR := $(shell sed -n 's/^\#define KK_VERSION_MINOR \([0-9]*\)/\1/p' include/keychainkit.h)
VERSION_PATCH := $(shell sed -n 's/^\#define KK_VERSION_PATCH \([0-9]*\)/\1/p' include/keychainkit.h)
VERSION  := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SONAME   := libkeychainkit.so.$(VERSION_MAJOR)
REALNAME := libkeychainkit.so.$(VERSION)

BUILD    := build
LIB      := $(BUILD)/lib/$(REALNAME)
CLI      := $(BUILD)/bin/keychainkit
# git's credential helper: the same program under the name git looks for.
GIT_HELPER := $(BUILD)/bin/git-credential-keychainkit
# Docker's and Podman's credential helper: the same program, likewise.
DOCKER_HELPER := $(BUILD)/bin/docker-credential-keychainkit
HELPERS  := $(GIT_HELPER) $(DOCKER_HELPER)
# The Secret Service of our own.
DAEMON   := $(BUILD)/bin/keychainkitd
MAN_STAMP := $(BUILD)/man/.stamp
PYTHON    = $(shell scripts/python-venv.sh)

.PHONY: all demo deps release lib cli man deb wheel sdist install uninstall test test-swift test-c test-python test-cli test-git test-docker test-portal test-hostile test-daemon test-swift-consumer test-packaging test-deb test-abi test-bench test-readme test-hygiene test-sanitizers check-extended fuzz-campaign bench clean FORCE

all: lib cli

deps:
	scripts/install-deps.sh

demo: deps
	scripts/demo.sh

# The shared library, with the Swift runtime linked in statically, stripped
# of everything but the kk_ symbols it exports.
lib: $(LIB)

# The manual pages come with the tools, so that `sudo make install` finds
# them made (as the user) and has nothing to write in build/.
cli: $(CLI) $(HELPERS) $(DAEMON) $(MAN_STAMP)

release: $(LIB) $(CLI)

# One release build of every product, with the Swift runtime linked
# statically, so that neither the library nor the tool needs a toolchain.
# It runs only when an input is newer than the stamp, when the list of inputs
# (which the stamp holds) has changed, or when an output and SwiftPM's copy
# of it are both gone: `make lib cli` as a user, then `sudo make install`
# (no swift on PATH) installs what was built without building again. The
# stamp has the time the build started, so a source edited during the build
# is newer than it.
#
# Hardened, as Debian builds (and lintian checks) binaries: full RELRO with
# immediate binding, no RUNPATH (SwiftPM adds $ORIGIN unless told not to),
# the C parts with the stack protector and _FORTIFY_SOURCE=2 (the Swift
# runtime does its own bounds checks); the tool is a position-independent
# executable, as SwiftPM links it. SWIFT_BUILD_FLAGS adds flags of the
# caller's that do not change what is built (debian/rules: where SwiftPM
# keeps its caches), so they are not part of the stamp.
RELEASE := .build/release
STAMP   := $(BUILD)/release.stamp
HARDENING := --disable-local-rpath -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now \
             -Xcc -fstack-protector-strong -Xcc -D_FORTIFY_SOURCE=2
SWIFT_BUILD_FLAGS ?=
# Generic types are made by direct calls to their metadata accessors, not
# looked up by mangled name at first use: that lookup scanned the type records
# of the whole binary (Swift's runtime is linked in) and cost each
# `keychainkit get` about 0.3 ms of CPU (perf: 13% of its samples).
METADATA := -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# The Swift runtime is C++: its C++ library and libgcc's unwinder are linked
# in statically too, so that no process loads libstdc++.so.6 and
# libgcc_s.so.1 and binds their symbols (measured: each `keychainkit get`
# about 1 ms sooner, each dlopen of the library 0.45 ms). The GCC Runtime
# Library Exception allows it, as Swift's runtime exception allows linking
# the Swift runtime in. Swift's link line asks for -lstdc++; the linker
# meets $(CXX_RUNTIME) first, where only the archive is. Its one call
# newer than glibc 2.35, arc4random, is answered by
# Sources/CKeychainKitSupport/arc4random.c.
CXX_RUNTIME := $(BUILD)/c++-runtime
STATIC_CXX := -Xswiftc -L -Xswiftc $(CURDIR)/$(CXX_RUNTIME) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
              -Xcc -DKEYCHAINKIT_STATIC_CXX
# Nothing the Makefile builds gives a Keychain to Swift code that could
# observe it: Keychain is built without Swift's Observation
# (KeychainKitAPI/WithoutObservation.swift), whose library would link Swift's
# concurrency runtime and libdispatch into the library and the tool, and
# their start into every process (the packaging test checks they are out).
NO_OBSERVATION := -Xswiftc -DKEYCHAINKIT_WITHOUT_OBSERVATION
RELEASE_FLAGS := -c release -Xswiftc -static-stdlib $(STATIC_CXX) $(METADATA) $(NO_OBSERVATION) $(HARDENING)
INPUTS  := Package.swift include/keychainkit.h $(sort $(shell find Sources -type f)) $(RELEASE_FLAGS)
BUILT   := $(shell cat $(STAMP) 2>/dev/null)
STALE   := $(if $(filter-out $(BUILT),$(INPUTS))$(filter-out $(INPUTS),$(BUILT)),FORCE) \
           $(if $(wildcard $(LIB) $(RELEASE)/libkeychainkit.so),,FORCE) \
           $(if $(wildcard $(CLI) $(RELEASE)/keychainkit-cli),,FORCE) \
           $(if $(wildcard $(DAEMON) $(RELEASE)/keychainkitd),,FORCE) \
           $(if $(wildcard $(RELEASE)/libkeychainkit-fuzz-targets.so),,FORCE)

$(STAMP): $(filter-out $(RELEASE_FLAGS),$(INPUTS)) $(STALE) | $(CXX_RUNTIME)/libstdc++.a
	@command -v $(firstword $(SWIFT)) >/dev/null 2>&1 || { \
	    echo "make: $(firstword $(SWIFT)) is not on PATH, and the build in $(BUILD)/ is missing or older than the sources." >&2; \
	    echo "make: run 'make lib cli' first, as your user with the Swift toolchain on PATH; then 'sudo make install' installs that build." >&2; \
	    exit 1; }
	@mkdir -p $(BUILD) && echo '$(INPUTS)' > $@.new
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_BUILD_FLAGS)
	@mv -f $@.new $@ 2>/dev/null || test -f $@

$(CXX_RUNTIME)/libstdc++.a:
	@mkdir -p $(@D)
	@archive=$$($(CC) -print-file-name=libstdc++.a); case $$archive in /*) ;; *) \
	    echo "make: $(CC) finds no libstdc++.a: install the C++ compiler's library (Debian: apt install g++)" >&2; exit 1 ;; esac; \
	    ln -sf "$$archive" $@

$(LIB): $(STAMP)
	mkdir -p $(BUILD)/lib
	strip --strip-unneeded -o $@ $(RELEASE)/libkeychainkit.so
	ln -sf $(REALNAME) $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/lib/libkeychainkit.so

$(CLI): $(STAMP)
	mkdir -p $(BUILD)/bin
	strip -o $@ $(RELEASE)/keychainkit-cli

$(DAEMON): $(STAMP)
	mkdir -p $(BUILD)/bin
	strip -o $@ $(RELEASE)/keychainkitd

# The fuzzers' entry points into the helpers' protocols (not installed).
FUZZ_TARGETS := $(BUILD)/fuzz-targets/libkeychainkit-fuzz-targets.so
$(FUZZ_TARGETS): $(STAMP)
	mkdir -p $(BUILD)/fuzz-targets
	cp $(RELEASE)/libkeychainkit-fuzz-targets.so $@

$(HELPERS): $(CLI)
	ln -sf keychainkit $@

# The manual pages (scripts/man.py): section 1 from the programs' --help,
# section 3 from the header's doc comments.
MANDIR    := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
# keychainkitd's systemd user unit (not enabled by make install).
USERUNITDIR := $(PREFIX)/lib/systemd/user

man: $(MAN_STAMP)

$(MAN_STAMP): scripts/man.py include/keychainkit.h $(CLI) $(HELPERS) $(DAEMON)
	rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	python3 scripts/man.py $(BUILD)/man include/keychainkit.h $(CLI) $(HELPERS) $(DAEMON) >/dev/null
	touch $@

# The packages are built from a copy of the source tree in build/deb/, with
# dpkg-buildpackage (debian/rules takes swift from PATH); they land in
# build/deb/. Needs no network.
DEB_STAGE := $(BUILD)/deb/keychainkit-$(VERSION)

deb:
	rm -rf $(BUILD)/deb && mkdir -p $(DEB_STAGE)
	tar --exclude=./.git --exclude=./.build --exclude=./build --exclude=__pycache__ --exclude='*.egg-info' \
	    --exclude=.pytest_cache --exclude=.hypothesis --exclude=./bindings/python/build --exclude=./debian/.home \
	    -cf - . | tar -xf - -C $(DEB_STAGE)
	cd $(DEB_STAGE) && SWIFT=$(SWIFT) dpkg-buildpackage -b -us -uc
	@ls $(BUILD)/deb/*.deb

FORCE:

# The Python package's source, staged in the repository's layout (setup.py
# reads the version from the header two levels up) so that a build leaves
# nothing in bindings/python and ships no library left there.
define stage-python
	rm -rf $(1) && mkdir -p $(1)/bindings/python $(1)/include
	cp -R bindings/python/pyproject.toml bindings/python/setup.py bindings/python/README.md bindings/python/keychainkit_keyring.py \
	    bindings/python/keychainkit $(1)/bindings/python/
	rm -rf $(1)/bindings/python/keychainkit/__pycache__
	cp LICENSE $(1)/bindings/python/LICENSE
	cp include/keychainkit.h $(1)/include/
endef

# The Python package with the library inside: a py3-none-linux wheel of the
# staged copy with the library in keychainkit/, which auditwheel repair (it
# runs patchelf) makes a manylinux one: the libraries outside the manylinux
# policy that the library needs (libsystemd, libgcrypt and theirs) are copied
# into keychainkit.libs/ under new names, the library's needed entries and
# RPATH point there, and the tag names the oldest glibc the symbols allow
# (manylinux_2_35 when built on Debian 12).
# The Swift runtime linked into the library is under the toolchain's licence,
# which the wheel carries with the bundled libraries' (scripts/wheel-licenses.py).
WHEEL_STAGE := $(BUILD)/wheel-stage
SWIFT_LICENSE = $(dir $(realpath $(shell command -v $(SWIFT))))../share/swift/LICENSE.txt
wheel: $(LIB)
	@command -v patchelf >/dev/null || { echo "make: auditwheel needs patchelf: make deps (or apt install patchelf)" >&2; exit 1; }
	rm -rf $(BUILD)/keychainkit-*.whl
	$(call stage-python,$(WHEEL_STAGE))
	cp $(LIB) $(WHEEL_STAGE)/bindings/python/keychainkit/$(SONAME)
	$(PYTHON) -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
	    --wheel-dir $(WHEEL_STAGE)/linux $(WHEEL_STAGE)/bindings/python
	$(PYTHON) -m auditwheel repair --wheel-dir $(BUILD) $(WHEEL_STAGE)/linux/keychainkit-*.whl 2>$(WHEEL_STAGE)/auditwheel.log || \
	    { cat $(WHEEL_STAGE)/auditwheel.log >&2; exit 1; }
	$(PYTHON) scripts/wheel-licenses.py $(BUILD)/keychainkit-*.whl "$(SWIFT_LICENSE)" >/dev/null
	rm -rf $(WHEEL_STAGE)
	@ls $(BUILD)/keychainkit-*.whl

# The Python package's source distribution: no library inside; a wheel
# built from it loads the machine's (make install, the Debian package) or
# $KEYCHAINKIT_LIBRARY. setup.py writes the header's version into its
# PKG-INFO, where a build from the sdist reads it.
SDIST_STAGE := $(BUILD)/sdist-stage
sdist:
	rm -rf $(BUILD)/keychainkit-*.tar.gz
	$(call stage-python,$(SDIST_STAGE))
	$(PYTHON) -m build --sdist --no-isolation --outdir $(BUILD) $(SDIST_STAGE)/bindings/python >$(SDIST_STAGE)/build.log 2>&1 || \
	    { cat $(SDIST_STAGE)/build.log >&2; exit 1; }
	rm -rf $(SDIST_STAGE)
	@ls $(BUILD)/keychainkit-*.tar.gz

# Installs what `make lib cli` built; needs no toolchain when that is up to
# date. The .pc file is written here, for this PREFIX and LIBDIR.
install: $(LIB) $(CLI) $(DAEMON) $(MAN_STAMP)
	install -d $(DESTDIR)$(PREFIX)/$(LIBDIR) $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(USERUNITDIR)
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/keychainkit
	install -m 755 $(DAEMON) $(DESTDIR)$(PREFIX)/bin/keychainkitd
	sed 's|@BINDIR@|$(PREFIX)/bin|' systemd/keychainkitd.service.in > $(DESTDIR)$(USERUNITDIR)/keychainkitd.service
	chmod 644 $(DESTDIR)$(USERUNITDIR)/keychainkitd.service
	ln -sf keychainkit $(DESTDIR)$(PREFIX)/bin/git-credential-keychainkit
	ln -sf keychainkit $(DESTDIR)$(PREFIX)/bin/docker-credential-keychainkit
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/$(LIBDIR)/$(REALNAME)
	ln -sf $(REALNAME) $(DESTDIR)$(PREFIX)/$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/$(LIBDIR)/libkeychainkit.so
	install -m 644 include/keychainkit.h $(DESTDIR)$(PREFIX)/include/keychainkit.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    pkgconfig/keychainkit.pc.in > $(DESTDIR)$(PREFIX)/$(LIBDIR)/pkgconfig/keychainkit.pc
	chmod 644 $(DESTDIR)$(PREFIX)/$(LIBDIR)/pkgconfig/keychainkit.pc
	install -m 644 $(BUILD)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/man/man3/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 completions/keychainkit $(DESTDIR)$(COMPLETIONDIR)/keychainkit
	ln -sf keychainkit $(DESTDIR)$(COMPLETIONDIR)/git-credential-keychainkit
	ln -sf keychainkit $(DESTDIR)$(COMPLETIONDIR)/docker-credential-keychainkit
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/keychainkit $(DESTDIR)$(PREFIX)/bin/git-credential-keychainkit \
	      $(DESTDIR)$(PREFIX)/bin/docker-credential-keychainkit $(DESTDIR)$(PREFIX)/bin/keychainkitd \
	      $(DESTDIR)$(USERUNITDIR)/keychainkitd.service \
	      $(DESTDIR)$(PREFIX)/$(LIBDIR)/$(REALNAME) \
	      $(DESTDIR)$(PREFIX)/$(LIBDIR)/$(SONAME) \
	      $(DESTDIR)$(PREFIX)/$(LIBDIR)/libkeychainkit.so \
	      $(DESTDIR)$(PREFIX)/include/keychainkit.h \
	      $(DESTDIR)$(PREFIX)/$(LIBDIR)/pkgconfig/keychainkit.pc \
	      $(DESTDIR)$(MANDIR)/man1/keychainkit.1 $(DESTDIR)$(MANDIR)/man1/git-credential-keychainkit.1 \
	      $(DESTDIR)$(MANDIR)/man1/docker-credential-keychainkit.1 $(DESTDIR)$(MANDIR)/man1/keychainkitd.1 \
	      $(DESTDIR)$(MANDIR)/man3/keychainkit.3 \
	      $(DESTDIR)$(COMPLETIONDIR)/keychainkit $(DESTDIR)$(COMPLETIONDIR)/git-credential-keychainkit \
	      $(DESTDIR)$(COMPLETIONDIR)/docker-credential-keychainkit
	for function in $$(sed -n 's/^KK_API [^(]*[ *]\(kk_[a-z_]*\)(.*/\1/p' include/keychainkit.h); do \
	    rm -f "$(DESTDIR)$(MANDIR)/man3/$$function.3"; done

test: deps
	$(MAKE) test-swift
	$(MAKE) test-c
	$(MAKE) test-python
	$(MAKE) test-cli
	$(MAKE) test-git
	$(MAKE) test-docker
	$(MAKE) test-portal
	$(MAKE) test-hostile
	$(MAKE) test-daemon
	$(MAKE) test-swift-consumer
	$(MAKE) test-packaging
	$(MAKE) test-deb
	$(MAKE) test-abi
	$(MAKE) test-bench
	$(MAKE) test-readme
	$(MAKE) test-hygiene
	$(MAKE) test-sanitizers

test-swift:
	$(SWIFT) build --build-tests
	scripts/with-session-keyring.sh $(HARNESS) $(SWIFT) test --skip-build

# The C ABI's behaviour suite (IntegrationTests/c) and the C examples
# (examples/c), on every backend, the examples also under valgrind.
test-c: $(LIB) $(DAEMON)
	IntegrationTests/c/run.sh $(CURDIR)/$(BUILD)/lib $(CURDIR)/include $(CURDIR)/$(BUILD)/c

# The Python suite tests the binding's own work, on memory and gnome-keyring
# (what the library does is the C suite's, on every server); on KeePassXC
# and KWallet a smoke run: the keyring backend's contract and the locked
# calls. Each run has a fresh server: inside one run KeePassXC 2.7.4 stopped
# answering the keyring tests after the others (alive, no signal; not
# diagnosed). The paths are bindings/python's, where run-tests.sh runs pytest.
KEYRING_TESTS := tests/test_keyring_backend.py tests/test_keyring_discovery.py

test-python: $(LIB) $(CLI)
	bindings/python/run-tests.sh
	KEYCHAINKIT_TEST_HARNESS=scripts/with-keepassxc.sh bindings/python/run-tests.sh tests/test_locked.py
	KEYCHAINKIT_TEST_HARNESS=scripts/with-keepassxc.sh bindings/python/run-tests.sh $(KEYRING_TESTS)
	KEYCHAINKIT_TEST_HARNESS=scripts/with-kwallet.sh bindings/python/run-tests.sh $(KEYRING_TESTS)

test-cli: $(CLI) $(GIT_HELPER)
	$(HARNESS) IntegrationTests/cli/run.sh $(CURDIR)/$(CLI) $(PYTHON)
	scripts/with-keepassxc.sh IntegrationTests/cli/run.sh $(CURDIR)/$(CLI) $(PYTHON)

# git-credential-keychainkit with real git, on gnome-keyring (and against
# git's own git-credential-libsecret), KWallet and KeePassXC; on each, git's
# own t0303 (the installed git's test suite: scripts/build-git-test-suite.sh).
test-git: $(GIT_HELPER)
	$(HARNESS) IntegrationTests/git/run.sh $(CURDIR)/$(GIT_HELPER) $(PYTHON)
	scripts/with-kwallet.sh IntegrationTests/git/run.sh $(CURDIR)/$(GIT_HELPER) $(PYTHON)
	scripts/with-keepassxc.sh IntegrationTests/git/run.sh $(CURDIR)/$(GIT_HELPER) $(PYTHON)

# docker-credential-keychainkit: the protocol, items shared with Debian's
# docker-credential-secretservice both ways, a real podman login and logout
# against a local registry, and no Secret Service or a locked one.
test-docker: $(DOCKER_HELPER)
	$(HARNESS) IntegrationTests/docker/run.sh $(CURDIR)/$(DOCKER_HELPER) $(PYTHON)

# The file store in a fake Flatpak sandbox (bubblewrap), its master secret
# from xdg-desktop-portal's Secret portal on a private bus of its own.
test-portal: $(CLI)
	IntegrationTests/portal/run.sh $(CURDIR)/$(CLI) $(PYTHON)

# keychainkitd (IntegrationTests/daemon): clients nobody here wrote
# (secret-tool, Python keyring with its own backend tests, git's t0303 with
# git-credential-libsecret and ours, docker-credential-secretservice,
# libsecret's file backend), and the daemon's own promises over the bus. The
# C suite also runs on it (test-c).
test-daemon: $(DAEMON) $(CLI) $(GIT_HELPER)
	$(PYTHON) -m pytest -q -p no:cacheprovider IntegrationTests/daemon

# Against the hostile fake Secret Service (IntegrationTests/hostile): the fake itself,
# checked with libsecret's secret-tool, then every trust-boundary finding
# through the Python binding, the git helper and the CLI.
test-hostile: $(LIB) $(CLI) $(GIT_HELPER)
	$(PYTHON) -m pytest -q -p no:cacheprovider IntegrationTests/hostile/test_fake_server.py
	KEYCHAINKIT_TEST_HARNESS=scripts/with-fake-secret-service.sh bindings/python/run-tests.sh \
	    $(CURDIR)/IntegrationTests/hostile/test_trust_boundary.py

# Another Swift package depending on this one by path (IntegrationTests/
# swift-consumer): README's Swift facts against the manifest, the build (its
# own debug build of KeychainKit, kept in build/swift-consumer), the system
# libraries it needs, round trips on memory and a private gnome-keyring.
test-swift-consumer:
	SWIFT="$(SWIFT)" IntegrationTests/swift-consumer/run.sh

bench: deps $(LIB) $(HELPERS)
	bench/run.sh full

# The benchmarks in a tiny configuration, so that they cannot rot; no timing
# is asserted.
test-bench: $(LIB) $(HELPERS)
	bench/run.sh tiny

test-readme: $(LIB) $(CLI)
	IntegrationTests/readme/run.sh

test-hygiene: $(LIB) $(CLI)
	IntegrationTests/hygiene/run.sh $(CURDIR)/$(BUILD)/lib

# The C tests and examples under AddressSanitizer and UBSan.
test-sanitizers: $(LIB)
	IntegrationTests/sanitizers/run.sh $(CURDIR)/$(BUILD)/lib

FUZZ_SECONDS ?= 60

check-extended: deps $(LIB) $(FUZZ_TARGETS)
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan
	scripts/with-session-keyring.sh $(HARNESS) $(SWIFT) test --skip-build --sanitize=thread --build-path .build/tsan
	IntegrationTests/fuzz/run.sh $(CURDIR)/$(BUILD)/lib $(FUZZ_SECONDS) $(CURDIR)/$(BUILD)/fuzz-targets

# The fuzzers with the library itself instrumented (coverage and ASan in
# its code), FUZZ_RUNS inputs each; grows the seed corpora. Not run by CI.
FUZZ_RUNS ?= 10000000
fuzz-campaign: deps
	IntegrationTests/fuzz/campaign.sh $(FUZZ_RUNS)

test-abi: $(LIB)
	IntegrationTests/abi/check.sh

test-packaging: $(LIB) $(CLI)
	IntegrationTests/packaging/run.sh

# make deb offline, lintian, then (as root) install, use with the toolchain
# hidden, and purge the four packages.
test-deb:
	IntegrationTests/deb/run.sh

clean:
	$(SWIFT) package clean
	rm -rf $(BUILD)
