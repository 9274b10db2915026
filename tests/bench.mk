# Benchmarks and the bundled example (`make bench`, `make example`; both
# names are declared phony in the top Makefile).  Never run by `make check`:
# they measure time, and tests never assert on time.

BENCH_CFLAGS := -O1 -g -pthread
BENCH_PROGRAMS := $(BUILD)/bench/memheavy $(BUILD)/bench/trivial \
                  $(BUILD)/bench/lockheavy $(BUILD)/bench/switchheavy

$(BUILD)/bench/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $<

EXAMPLE_PROGRAM := $(BUILD)/examples/bank

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -pthread -Wall -Wextra -o $@ $<

# Runs every scripts/bench-*.sh in turn (by its own #! line when it is
# executable), then scripts/glib-suite.sh (cbtest over GLib's own threading
# tests, beside Helgrind); one failing does not hide the rest.  Other
# folders add what their scripts need as prerequisites of `bench`.
bench: all $(BENCH_PROGRAMS)
	@status=0; for s in scripts/bench-*.sh scripts/glib-suite.sh; do echo "== $$s"; \
	   if [ -x "$$s" ]; then "./$$s" || status=1; \
	   else sh "$$s" || status=1; fi; done; exit $$status

example: all $(EXAMPLE_PROGRAM)
	scripts/example.sh
