# tests/fuzz/: libFuzzer harnesses (clang -fsanitize=fuzzer,address,undefined)
# of every reader of outside input: the trace reader, the schedule reader,
# the encoder of the tool's raw stream, cbtest's tests-file parser and
# the source-expression finder (it reads lines of the user's sources).
#   make fuzz                  runs each for FUZZ_SECONDS (default 60) from
#                              its seed corpus (tests/fuzz/corpus/NAME/) and
#                              its regressions (tests/fuzz/regress/NAME/);
#                              what it finds lands in build/fuzz/found/NAME/
#   make check                 tests/t/12-fuzz.t: every regression input
#                              once, then each harness a few seconds
# The code under test is compiled again with clang and coverage
# instrumentation into build/fuzz/ (the gcc build is left alone).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
                -Iproto -Itrace -Ireschedule/batch -I$(BUILD)/proto \
                -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
FUZZ_NAMES   := trace schedule wire tests_file source_expr
FUZZ_BINS    := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

FUZZ_LIB_OBJS := $(LIBCBTRACE_SRCS:%.c=$(BUILD)/fuzz/%.o) \
                 $(BUILD)/fuzz/proto/trace.pb-c.o
FUZZ_EXTRA_tests_file := $(BUILD)/fuzz/reschedule/batch/cbtest_suite.o

$(BUILD)/fuzz/%.o: %.c | deps $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(BUILD)/fuzz/proto/trace.pb-c.o: $(PROTO_GEN_C) $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# Kept between runs (make would delete them as intermediates).
.SECONDARY: $(FUZZ_LIB_OBJS) $(FUZZ_EXTRA_tests_file)

# Each harness links the instrumented library and what else it tests.
$(BUILD)/fuzz/fuzz_tests_file: $(FUZZ_EXTRA_tests_file)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	   $(filter-out $(FUZZ_LIB_OBJS),$(filter %.o,$^)) $(FUZZ_LIB_OBJS) \
	   $(HOST_LDLIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@status=0; for n in $(FUZZ_NAMES); do \
	   tests/fuzz/run.sh $(BUILD)/fuzz $$n $(FUZZ_SECONDS) || status=1; \
	 done; exit $$status

CHECK_DEPS += $(FUZZ_BINS)
