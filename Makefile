# The two set-up commands of the README live here: `make demo` and `make test`.
BUILD_DIR   ?= build
DATA_DIR    ?= attest-data
PG_DOCS     ?= /usr/share/doc/postgresql-doc-15/html
JOBS        ?= $(shell nproc)
ATTEST       = $(BUILD_DIR)/attest

.PHONY: bootstrap build demo test bench fuzz fuzz-campaign crash-campaign clean

bootstrap:
	./scripts/bootstrap

build: bootstrap
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	@test -d $(PG_DOCS) || { echo "$(PG_DOCS) is missing: scripts/bootstrap installs postgresql-doc-15"; exit 1; }
	$(ATTEST) --data $(DATA_DIR) ingest --source-type docs --version 15 --site www.postgresql.org $(PG_DOCS)
	$(ATTEST) --data $(DATA_DIR) stats
	$(ATTEST) --data $(DATA_DIR) search --k 5 "logical replication slot"
	$(ATTEST) --data $(DATA_DIR) search --k 5 "max_wal_senders"
	$(ATTEST) --data $(DATA_DIR) search --k 3 --filter source_type=release_notes "logical replication fix"
	$(ATTEST) --data $(DATA_DIR) search --k 3 '"replication slot" +"max_slot_wal_keep_size"'
	$(ATTEST) --data $(DATA_DIR) search --k 3 "vacuum freeze -autovacuum"
	$(ATTEST) --data $(DATA_DIR) search --k 3 --explain "prevent transaction id wraparound"
	$(ATTEST) --data $(DATA_DIR) search --k 3 --mode vector "standby server replays changes from the primary"
	$(ATTEST) --data $(DATA_DIR) ask "What changed in the latest PostgreSQL release for logical replication?"
	$(ATTEST) --data $(DATA_DIR) ask "How do I create an index without locking writes on the table?"
	$(ATTEST) --data $(DATA_DIR) ask "What is the default value of max_wal_senders?"
	$(ATTEST) --data $(DATA_DIR) ask "What is the default value of checkpoint_warning?"
	$(ATTEST) --data $(DATA_DIR) ask "convert 8 GB to MiB"
	./scripts/demo_serve $(ATTEST) $(DATA_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

bench: bootstrap
	ATTEST_BOOTSTRAP_EXTRAS=1 ./scripts/bootstrap
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTEST_BENCH_XAPIAN=ON
	cmake --build $(BUILD_DIR) -j $(JOBS)

# libFuzzer builds: the library is instrumented too (fuzzer-no-link), the targets link libFuzzer.
# Run e.g. `build-fuzz/fuzz/html_extractor_fuzz -max_total_time=60 /tmp/scratch fuzz/corpus/html_extractor_fuzz`.
fuzz:
	ATTEST_BOOTSTRAP_EXTRAS=1 ./scripts/bootstrap
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTEST_LIBFUZZER=ON \
	  -DATTEST_BUILD_TESTS=OFF -DATTEST_BUILD_BENCH=OFF \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link"
	cmake --build build-fuzz -j $(JOBS)

# The fuzzing campaign (docs/testing.md): every fuzz/*_fuzz.cc target for FUZZ_SECONDS (10
# CPU-minutes by default) under ASan and UBSan from its committed seeds; crashes go to
# build-fuzz/campaign/crashes/<target>/ and a table shows seconds, executions, corpus and crashes.
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 1
fuzz-campaign:
	ATTEST_BOOTSTRAP_EXTRAS=1 ./scripts/bootstrap
	./scripts/fuzz_campaign --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --build-dir build-fuzz --out build-fuzz/campaign

# The nightly kill -9 campaign (docs/testing.md): CRASH_POINTS kill points over ingest, FinishBulk,
# training, reembed and documents:batch through the server; prints where they fell and the count of
# lost acknowledged documents (must be 0). The CI suite runs 100 of them (tests/crash_recovery_test.cc).
CRASH_POINTS ?= 1000
CRASH_SEED   ?= 1
crash-campaign: bootstrap
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j $(JOBS) --target attest crash_campaign
	nice -n 10 $(BUILD_DIR)/bench/crash_campaign --points $(CRASH_POINTS) --seed $(CRASH_SEED)

clean:
	rm -rf $(BUILD_DIR) build-fuzz
