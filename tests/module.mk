# tests/: TAP tests run by prove.  Each area puts its tests in tests/t/ as
# executable .t scripts and adds what they need built to CHECK_DEPS in its
# own module.mk.  This file is included last, so CHECK_DEPS is complete here.

# The small C programs of tests/programs/ (known bugs and known-correct
# ones; tests/lib/README.md describes the markers they carry).  Built the
# way a user would build a program to test: -O1 -g, no sanitizers.  A
# program whose header says `cbtools-cflags: FLAGS` (e.g. -O2) is built with
# FLAGS in place of -O1: real code ships optimised, with static helpers
# inlined.  -g and the rest stay, so every program has its debug info.
#
# A program whose header says `cbtools-pkg: NAME` uses a library: it is
# built against pkg-config's package NAME (--cflags and --libs after the
# source).  When pkg-config does not know NAME the program is left unbuilt,
# with a note, and the tests that run it say they skip it and why
# (cb_program_missing in tests/lib/programs.sh); `make deps` installs the
# packages the programs use (scripts/setup-deps.sh), and runs first.
TEST_PROGRAM_CFLAGS := -g -pthread -Ivgtool -Wall -Wextra
TEST_PROGRAM_OPT := -O1
test_program_opt = $(or $(shell sed -n 's/^.*cbtools-cflags:[[:space:]]*//p' $(1) | head -n 1),$(TEST_PROGRAM_OPT))
test_program_pkg = $(shell sed -n 's/^.*cbtools-pkg:[[:space:]]*//p' $(1) | head -n 1)
test_program_libs = $(if $(1),$(shell pkg-config --cflags --libs $(1) 2>/dev/null || echo cbtools-no-pkg))
# $(call test_program_build,SRC,PROGRAM,PKG): the recipe line.
test_program_build = $(if $(filter cbtools-no-pkg,$(call test_program_libs,$(3))),\
   @echo "tests: $(2) not built: pkg-config knows no $(3) (make deps installs it)",\
   $(CC) $(call test_program_opt,$(1)) $(TEST_PROGRAM_CFLAGS) -o $(2) $(1) $(call test_program_libs,$(3)))
TEST_PROGRAMS := $(patsubst tests/programs/%.c,$(BUILD)/programs/%,\
                   $(wildcard tests/programs/*.c))

.PHONY: programs
programs: $(TEST_PROGRAMS)

$(BUILD)/programs/%: tests/programs/%.c vgtool/cbtools.h | deps
	@mkdir -p $(dir $@)
	$(call test_program_build,$<,$@,$(call test_program_pkg,$<))

CHECK_DEPS += $(TEST_PROGRAMS)

include tests/bench.mk

# scripts/bench-e2e.sh runs the whole pipeline on the buggy test programs.
bench: $(TEST_PROGRAMS) $(BIN)/cbtrace $(BIN)/cbpredict $(BIN)/cbreplay

# The longest tests start first, so that the last minutes do not run one
# alone; three at a time on two cores, as many of them wait (forced runs'
# timeouts, programs that sleep) as compute.  The checks a loaded machine
# used to fail (44's 200 ms deadlines, in the recording and after a forced
# run's release, 32's recording of samples.c) record or force again when
# the run is not the one they need.
CHECK_FIRST := tests/t/45-replay-e2e.t tests/t/68-cbtest-attribution.t \
               tests/t/64-cbtest-explore.t tests/t/47-replay-spin.t \
               tests/t/60-cbtest.t tests/t/44-timed-wait.t \
               tests/t/49-poll-order.t tests/t/49-half-done.t
CHECK_TESTS := $(CHECK_FIRST) \
               $(filter-out $(CHECK_FIRST),$(sort $(wildcard tests/t/*.t)))

.PHONY: check
check: all $(CHECK_DEPS)
	prove -j3 $(CHECK_TESTS)

# Builds everything the tests need without running them (for running one
# test file by hand: make check-deps && prove -v tests/t/NN-x.t).
.PHONY: check-deps
check-deps: all $(CHECK_DEPS)
