# KeychainKit — build, test, install.
#
#   make test      install missing packages (as root), build, run every test
#                  inside a private D-Bus session with a fresh gnome-keyring
#   make build     build the library (release)
#   make deps      install missing Debian packages

SWIFT       ?= swift
HARNESS     := scripts/with-secret-service.sh

.PHONY: all build deps test test-swift clean

all: build

deps:
	scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(HARNESS) $(SWIFT) test --skip-build

clean:
	$(SWIFT) package clean
	rm -rf build
