# rnic: iWARP MPA/DDP datapath in rust-hdl.
#   make         build, export the Verilog, run the vectors through the golden model and the
#                hardware, print a short report
#   make test    every test (installs the tools it needs when they are missing)
#   make bench   benchmarks; numbers under build/bench/
# Tools come from Debian (apt) and PyPI (into the project-local .venv); see `make deps`.

SHELL := /bin/bash
CARGO ?= cargo
RNIC := target/release/rnic
BUILD := build
VENV := .venv
APT_PACKAGES := yosys verilator g++ make python3-venv
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: all build report test deps apt-deps venv-deps bench clean

all: report

build:
	$(CARGO) build --release

report: build
	@echo "== specification vectors through the golden model =="
	$(RNIC) vectors

# Installs what the tests need when it is missing: Debian packages (as root, or through sudo)
# and Python packages into the project-local venv.
deps: apt-deps

apt-deps:
	@missing=""; \
	command -v yosys >/dev/null || missing="$$missing yosys"; \
	command -v verilator >/dev/null || missing="$$missing verilator"; \
	command -v g++ >/dev/null || missing="$$missing g++"; \
	python3 -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

test: deps
	mkdir -p $(BUILD)
	$(CARGO) test --workspace 2>&1 | tee $(BUILD)/test.log; exit $${PIPESTATUS[0]}

bench: build
	mkdir -p $(BUILD)/bench
	$(CARGO) bench -p golden --bench framing 2>&1 | tee $(BUILD)/bench/golden.txt

clean:
	rm -rf $(BUILD)
