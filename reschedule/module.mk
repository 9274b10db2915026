# reschedule/: `cbreplay`, which forces predicted schedules on a program run
# under the tool in replay mode and judges each run (replay.h: the parts).

CBREPLAY_SRCS := reschedule/options.c reschedule/find_schedule.c \
                 reschedule/validate.c reschedule/plan.c reschedule/status.c \
                 reschedule/keeper.c reschedule/run_one.c \
                 reschedule/judge.c reschedule/diverged.c reschedule/variants.c reschedule/pin.c reschedule/hunt.c \
                 reschedule/misread.c \
                 reschedule/check_cmd.c reschedule/run_all.c \
                 reschedule/report.c reschedule/report_bug.c \
                 reschedule/report_json.c \
                 reschedule/progress.c reschedule/record_run.c
CBREPLAY_OBJS := $(CBREPLAY_SRCS:%.c=$(BUILD)/host/%.o)
CBREPLAY_LIB  := $(BUILD)/libcbreplay.a

$(CBREPLAY_LIB): $(CBREPLAY_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/cbreplay: $(BUILD)/host/reschedule/cbreplay_main.o $(CBREPLAY_LIB) \
                 $(LIBCBTRACE)
	@mkdir -p $(BIN)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(CBREPLAY_LIB) $(LIBCBTRACE) $(HOST_LDLIBS)

# Test helpers: write a schedule from the command line; print the counted
# events of a raw event stream; unit tests of the parts.
$(BUILD)/tests/replay_%: tests/unit/replay_%.c $(CBREPLAY_LIB) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ireschedule -o $@ $< $(CBREPLAY_LIB) $(LIBCBTRACE) \
	   $(HOST_LDLIBS)

# The unit tests again under ASan+UBSan.
CBREPLAY_SAN_OBJS := $(CBREPLAY_SRCS:%.c=$(BUILD)/san/%.o)
$(BUILD)/tests/replay_%-san: tests/unit/replay_%.c $(CBREPLAY_SAN_OBJS) \
                             $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_CFLAGS) -Ireschedule -o $@ $< \
	   $(CBREPLAY_SAN_OBJS) $(LIBCBTRACE_SAN) $(HOST_LDLIBS)

# The benchmark's two-thread program (scripts/bench-replay.sh).
$(BUILD)/bench/replay_pingpong: tests/unit/replay_pingpong.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -pthread -o $@ $<

REPLAY_TEST_HELPERS := $(BUILD)/tests/replay_mkschedule \
                       $(BUILD)/tests/replay_events $(BUILD)/tests/replay_unit \
                       $(BUILD)/tests/replay_unit-san \
                       $(BUILD)/tests/replay_misread $(BUILD)/tests/replay_misread-san

all: $(BIN)/cbreplay
CHECK_DEPS += $(BIN)/cbreplay $(REPLAY_TEST_HELPERS)
# `make bench` (tests/bench.mk) runs scripts/bench-replay.sh, which needs these.
bench: $(BIN)/cbreplay $(BUILD)/bench/replay_pingpong \
       $(BUILD)/tests/replay_mkschedule
include reschedule/batch/cbtest.mk
