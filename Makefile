# evolve: the two commands of the README are `make run` and `make test`.
GO ?= go
PKGS := ./...
FUZZTIME ?= 60s
# Minimizing each new interesting input takes up to 60 s by default, with no
# execs counted meanwhile (the "0/sec" stalls); keep it short.
FUZZMINIMIZE ?= 2s

.PHONY: run test vet cross bench fuzz build clean

## run: evolve the base prompt on the built-in dungeon (the embedded default)
run:
	$(GO) run ./cmd/evolve run

## build: build bin/evolve
build:
	$(GO) build -o bin/evolve ./cmd/evolve

## test: what CI runs: vet, then every test (a few minutes on 2 cores)
test: vet
	$(GO) test -count=1 -timeout 20m $(PKGS)

## cross: what CI checks for the other platforms (README, "Platforms"): build and vet (which type-checks the tests too) for each of CROSS, and compile and link every package's tests for macOS (go test with -exec true: the binaries are built, never run; go test -c cannot write two packages' binaries of one name, agent/nethack and envs/nethack)
CROSS ?= darwin/arm64 darwin/amd64 windows/amd64
cross:
	@for p in $(CROSS); do \
	  echo "cross: $$p: go build, go vet"; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build $(PKGS) || exit 1; \
	  GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet $(PKGS) || exit 1; \
	done
	@echo "cross: darwin/arm64: go test -exec true (build and link the tests)"
	@GOOS=darwin GOARCH=arm64 $(GO) test -count=1 -exec true $(PKGS) > /dev/null

vet:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files "*.go"))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files "*.go"); exit 1)

## bench: Go benchmarks (env steps/s, real NetHack actions/s per worker and start-up time, trajectory recording cost and bytes/step, evolve view's runs page (200 runs) and episodes page (10^5 episodes), episodes/s at 1 and 2 workers, the default run's wall time (BenchmarkExecutor/executor=local), an LLM run's requests/s against the concurrency-bound ideal (BenchmarkLLMRunPool), the candidates' pool, U test, HL shift at 10^6, compare 10^6 vs 10^6, report and run with a 100,000-seed test split, store append and resolve, text screening), as a table
bench:
	$(GO) test -run '^$$' -bench . -skip 'BenchmarkRunLargeTestSplit' -benchmem -count 6 -timeout 30m ./agent ./view ./envs/dungeon ./envs/process ./agent/nethack ./play ./cache ./eval ./llm ./render ./stats ./results ./store ./guard ./report ./cmd/evolve | tee bench.txt
	$(GO) test -run '^$$' -bench 'BenchmarkRunLargeTestSplit' -benchtime 1x -count 1 -timeout 30m ./cmd/evolve | tee -a bench.txt
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da bench.txt

DUCKDB_BENCH ?= $${TMPDIR:-/tmp}/evolve-bench-duckdb.txt
BENCH_ROUNDS ?= 6
## bench-duckdb: episodes.parquet's writer (BenchmarkWriteEpisodes, with fsync, and BenchmarkEncodeEpisodes, in memory; 100,000 rows; GOMAXPROCS 1 and 2) against DuckDB's single-threaded COPY ... TO parquet (zstd, no fsync) of the same table, in BENCH_ROUNDS interleaved rounds (Go, then DuckDB) so that the machine's load falls on both alike, as a table of medians (results/internal/duckdbbench is a module of its own: evolve does not depend on DuckDB)
.PHONY: bench-duckdb
bench-duckdb:
	$(GO) test -c -o $${TMPDIR:-/tmp}/evolve-results.test ./results
	cd results/internal/duckdbbench && $(GO) build -o $${TMPDIR:-/tmp}/evolve-duckdbbench .
	: > $(DUCKDB_BENCH)
	for i in $$(seq $(BENCH_ROUNDS)); do \
		(cd results && EVOLVE_BENCH_PARQUET=$${TMPDIR:-/tmp}/evolve-bench-episodes.parquet $${TMPDIR:-/tmp}/evolve-results.test -test.run '^$$' -test.bench 'BenchmarkWriteEpisodes|BenchmarkEncodeEpisodes' -test.benchmem -test.cpu 1,2 -test.count 1) > $(DUCKDB_BENCH).round || exit 1; \
		$${TMPDIR:-/tmp}/evolve-duckdbbench -n 3 $${TMPDIR:-/tmp}/evolve-bench-episodes.parquet >> $(DUCKDB_BENCH).round || exit 1; \
		cat $(DUCKDB_BENCH).round; cat $(DUCKDB_BENCH).round >> $(DUCKDB_BENCH); \
	done; rm -f $(DUCKDB_BENCH).round
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da -col .name $(DUCKDB_BENCH) || $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da $(DUCKDB_BENCH)

PYTHON ?= /usr/bin/python3
## bench-scipy: `evolve compare` (bin/evolve) of 10^6 against 10^6 scores against scipy's mannwhitneyu with numpy.loadtxt (Debian's python3-scipy), each a process of its own, in BENCH_ROUNDS interleaved rounds: each round's wall and CPU time, the medians and the ratio evolve/scipy (target: wall <= 0.8); the two score files are generated deterministically; skipped with a message when PYTHON cannot import scipy
.PHONY: bench-scipy
bench-scipy: build
	@if $(PYTHON) -c 'import numpy, scipy' 2>/dev/null; then \
	  $(PYTHON) scripts/bench-scipy.py --evolve bin/evolve --rounds $(BENCH_ROUNDS); \
	else \
	  echo "bench-scipy: skipped: $(PYTHON) cannot import numpy and scipy (Debian: apt-get install python3-scipy)"; \
	fi

## sim-sequential: the group-sequential acceptance gate's size and power, and the two stopping rules over four candidates, by simulation, 10,000 reps per row (the tables of docs/sequential.md)
.PHONY: sim-sequential sequential-bounds
sim-sequential:
	$(GO) test -count=1 -timeout 20m -run 'TestSequentialSimulation|TestStoppingRuleSimulation' -v ./accept -args -sim

## sequential-bounds: recompute the Lan-DeMets boundary reference values (stats/testdata/sequential/bounds.json) with scipy (Debian python3-scipy; a few minutes)
sequential-bounds:
	/usr/bin/python3 stats/testdata/sequential/bounds.py

## fuzz: run every fuzz target for FUZZTIME each (default 60s)
fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for t in $$($(GO) test -list 'Fuzz.*' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || exit 1; \
	  done; \
	done

## load-serve: load test of evolve serve on loopback: 1,000 concurrent clients issue 100,000 select+observe pairs; checks no lost update (weights.json = replay of the observation log) and prints p50/p99 latency and requests/s
.PHONY: load-serve
load-serve: build
	$(GO) run ./cmd/evolve/internal/loadtest --evolve bin/evolve --clients 1000 --pairs 100000

clean:
	rm -rf bin bench.txt

.PHONY: test-slurm bench-slurm

# with_slurm runs its argument (a shell command) with the single-node Slurm
# cluster of scripts/slurm-dev-cluster up and SLURM_CONF pointing at it. A
# cluster already up is used and left up; one this target starts is
# stopped when the command ends (or is interrupted).
define with_slurm
	@if ! scripts/slurm-dev-cluster status >/dev/null 2>&1; then \
	  scripts/slurm-dev-cluster start || exit 1; \
	  trap 'scripts/slurm-dev-cluster stop' EXIT; trap 'exit 130' INT TERM; \
	fi; \
	eval "$$(scripts/slurm-dev-cluster env)"; \
	$(1)
endef

## test-slurm: the Slurm tests alone (go test -run Slurm) on the dev cluster of scripts/slurm-dev-cluster (needs root or sudo; installs Debian's slurm-wlm and munge if missing); a site's cluster only with the opt-in EVOLVE_SLURM_SITE=1 go test -count=1 -run Slurm ./...
test-slurm:
	$(call with_slurm,$(GO) test -count=1 -run Slurm $(PKGS))

SLURM_BENCH ?= $${TMPDIR:-/tmp}/evolve-bench-slurm.txt
## bench-slurm: sbatch and squeue latency and an 8-task array from submission to done, on the dev cluster, as a table (in SLURM_BENCH)
bench-slurm:
	$(call with_slurm,$(GO) test -run '^$$' -bench Slurm -benchtime 10x -count 6 ./internal/slurm | tee $(SLURM_BENCH))
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da $(SLURM_BENCH)

## stats-tables: the simulations of docs/statistics.md (size of the gate's tests, A12 margin, family-wise error, interval coverage), fixed seeds
.PHONY: stats-tables stats-reference
stats-tables:
	$(GO) run ./gate/internal/simulate -table all

## sim-a12: the A12-margin gate's size at the margin (studentized permutation test vs the logit-normal and Brunner-Munzel t tests; n = 10, 20, 50, 100, with and without ties; 10,000 reps per row, about 8 minutes; the table of docs/statistics.md)
.PHONY: sim-a12 sim-coverage
sim-a12:
	$(GO) run ./gate/internal/simulate -table a12

## sim-coverage: coverage of the t and BCa intervals of the mean and the percentile and BCa intervals of the IQM (normal and lognormal scores, n = 5 to 50, 10,000 reps per row; the table of docs/statistics.md)
sim-coverage:
	$(GO) run ./gate/internal/simulate -table coverage

## sim-stratified: coverage of rliable's stratified bootstrap intervals (aggregate IQM, mean, P(X > Y); 3 to 10 runs, 1 and 3 tasks, 2,000 reps per row; the table of docs/ablation.md)
.PHONY: sim-stratified
sim-stratified:
	$(GO) run ./gate/internal/simulate -table stratified

## stats-reference: regenerate the R and scipy reference values of stats/testdata (needs Rscript and python3 with scipy)
stats-reference:
	Rscript stats/testdata/gen_R.R
	python3 stats/testdata/gen_scipy.py
	python3 stats/testdata/gen_failinc.py
	Rscript stats/testdata/gen_boot.R
	/usr/bin/python3 scripts/rliable_reference.py > stats/testdata/rliable_numpy_reference.json
