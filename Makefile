# make test: everything CI checks. make bench: docs/BENCHMARKS.md.
GO      ?= go
GOFILES  = $(shell find . -name '*.go' -not -path './.cache/*' -not -path './bin/*')
CLAUDE_VERSION = 2.1.328
CLAUDE_DIR     = .cache/claude-code
CLAUDE_BIN     = $(CLAUDE_DIR)/node_modules/@anthropic-ai/claude-code/bin/claude.exe

export FLOWER_CLAUDE = $(abspath $(CLAUDE_BIN))

.PHONY: test check vet unit build e2e-deps e2e-min bench demo clean fuzz dist

test: check e2e-deps
	FLOWER_E2E_REQUIRED=1 $(GO) test -race -timeout 45m ./...
	$(MAKE) e2e-min
	$(MAKE) build

check:
	@out=$$(gofmt -s -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt -s would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Static binaries, as install.sh and the e2e tests build them.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o bin/ ./cmd/...

# The pinned real Claude Code CLI for the end-to-end tests, into a cache
# folder of the repo (ignored by git). Installed once; absent means install.
e2e-deps: $(CLAUDE_BIN)
$(CLAUDE_BIN):
	mkdir -p $(CLAUDE_DIR)
	npm install --prefix $(CLAUDE_DIR) --no-save --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_VERSION)
	test -x $(CLAUDE_BIN)

# The oldest Claude Code flower supports (hook.MinClaudeVersion, read from
# its one place) and the end-to-end tests of what flower needs of it: a
# deny, agent_id, output replaced for Bash and Read, additionalContext at
# session start, subagent start, prompt and failure, the SessionStart
# sources, the transcript fields prune-session reads, the Bash command
# string the capture script checks.
CLAUDE_MIN_VERSION := $(shell sed -n 's/^const MinClaudeVersion = "\(.*\)"$$/\1/p' pkg/hook/claude.go)
CLAUDE_MIN_DIR      = .cache/claude-code-min/$(CLAUDE_MIN_VERSION)
CLAUDE_MIN_BIN      = $(CLAUDE_MIN_DIR)/node_modules/@anthropic-ai/claude-code/bin/claude.exe
E2E_MIN = TestCLIVersion|TestCLIUpdatedToolOutputShape|TestLayer1MainRmDenied|TestLayer1SubagentWorks|TestLayer2MainSeesIndex|TestLayer2SubagentSeesIndex|TestLayer2PromptsGetUpdates|TestLayer2ForkSeesIndex|TestLayer3SubagentSeqSpilled|TestLayer4PruneAndResume|TestCaptureShape|TestCaptureFailingSeq

e2e-min: $(CLAUDE_MIN_BIN)
	FLOWER_CLAUDE=$(abspath $(CLAUDE_MIN_BIN)) FLOWER_E2E_REQUIRED=1 $(GO) test -timeout 30m ./tests/e2e -count=1 -run '^($(E2E_MIN))$$'
$(CLAUDE_MIN_BIN):
	@test -n "$(CLAUDE_MIN_VERSION)" || { echo "no MinClaudeVersion in pkg/hook/claude.go"; exit 1; }
	mkdir -p $(CLAUDE_MIN_DIR)
	npm install --prefix $(CLAUDE_MIN_DIR) --no-save --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_MIN_VERSION)
	test -x $(CLAUDE_MIN_BIN)

# Every fuzz target, FUZZTIME each (not part of make test). Without
# -fuzzminimizetime=0 each worker spends up to a minute minimizing every
# new input, counting no executions meanwhile, and the run seems to stall.
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz: $$pkg $$f"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime=0 || exit 1; \
	  done; \
	done

bench:
	$(GO) run ./tools/bench -out docs/BENCHMARKS.md

# One scripted session through the real CLI, without flower and with every
# layer that has landed: what the main thread's model received, turn by turn.
DEMO_OUT = $(abspath .cache/demo.txt)
demo: e2e-deps
	@rm -f $(DEMO_OUT)
	@out=$$($(GO) test ./tests/e2e -run '^TestDemo$$' -count=1 -args -demo=$(DEMO_OUT) 2>&1) || { echo "$$out"; exit 1; }
	@cat $(DEMO_OUT)

# Static archives for installing without Go: one per DIST_TARGETS entry,
# each holding bin/ with every command, install.sh, README.md and LICENSE,
# and SHA256SUMS beside them. install.sh --from ARCHIVE installs one.
DIST         ?= dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
dist: build
	@set -e; version=$$(bin/delegate-guard --version | cut -d' ' -f2); \
	rm -rf $(DIST) && mkdir -p $(DIST); \
	for t in $(DIST_TARGETS); do \
	  name=flower-$$version-$${t%/*}-$${t#*/}; \
	  echo "dist: $$name.tar.gz"; \
	  mkdir -p $(DIST)/$$name/bin; \
	  GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o $(DIST)/$$name/bin/ ./cmd/...; \
	  cp install.sh README.md LICENSE $(DIST)/$$name/; \
	  tar -C $(DIST) --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -czf $(DIST)/$$name.tar.gz $$name; \
	  rm -rf $(DIST)/$$name; \
	done; \
	cd $(DIST) && sha256sum *.tar.gz >SHA256SUMS

clean:
	rm -rf bin dist
