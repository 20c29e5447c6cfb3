# cmdai: build, test and benchmark. `make help` lists the targets.
GO      ?= go
BIN     := bin/cmdai
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
# The fuzz targets and how long `make fuzz` runs each.
FUZZTIME ?= 2m

.PHONY: help build index scan test test-deps bench fuzz vet fmt clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/cmdai
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/cmdai

# The main job on this machine. `cmdai index init` arrives with the
# embedding and Chroma stages; until then this runs the dry run it builds on.
index: build ## build, then index this machine (currently: the scan dry run)
	./$(BIN) index scan --stats

scan: index

test-deps: ## install the Debian packages the tests read (man pages, man-db)
	./scripts/install-test-deps.sh

test: test-deps vet ## install what tests need, then run every test
	CI=$${CI:-} $(GO) test -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...
	@out="$$(find . -name '*.go' -not -path './tmpdbg/*' | xargs -r gofmt -l)"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: test-deps ## run the benchmarks (see BENCHMARKS.md)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./manparse/ ./scanner/

fuzz: ## run the parser's fuzz targets for FUZZTIME each
	$(GO) test ./manparse -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./manparse -run '^$$' -fuzz '^FuzzParseHelp$$' -fuzztime $(FUZZTIME)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
