# reschedule/batch/cbtest.mk: `cbtest`, the batch driver that runs record, predict
# and every forced replay over a whole test suite (cbtest.h: the parts).
# Included from reschedule/module.mk.

CBTEST_SRCS := reschedule/batch/cbtest_options.c reschedule/batch/cbtest_suite.c \
               reschedule/batch/cbtest_pipeline.c reschedule/batch/cbtest_judge.c \
               reschedule/batch/cbtest_words.c reschedule/batch/cbtest_lastline.c \
               reschedule/batch/cbtest_progress.c reschedule/batch/cbtest_summary.c \
               reschedule/batch/cbtest_json.c reschedule/batch/cbtest_report.c \
               reschedule/batch/cbtest_sarif.c \
               reschedule/batch/cbtest_state.c reschedule/batch/cbtest_wrap.c \
               reschedule/batch/cbtest_merge.c reschedule/batch/cbtest_bugs.c \
               reschedule/batch/cbtest_flow.c reschedule/batch/cbtest_html.c \
               reschedule/batch/cbtest_runs.c reschedule/batch/cbtest_crash.c \
               reschedule/batch/cbtest_explore.c \
               reschedule/batch/cbtest_compose.c \
               reschedule/batch/cbtest_clean.c
CBTEST_OBJS := $(CBTEST_SRCS:%.c=$(BUILD)/host/%.o)

$(BIN)/cbtest: $(BUILD)/host/reschedule/batch/cbtest_main.o $(CBTEST_OBJS) \
               $(LIBCBTRACE)
	@mkdir -p $(BIN)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(CBTEST_OBJS) $(LIBCBTRACE) \
	   $(HOST_LDLIBS) -lm

# Unit test of the composition of explored schedules.
$(BUILD)/tests/cbtest_compose: tests/unit/cbtest_compose.c \
                               $(BUILD)/host/reschedule/batch/cbtest_compose.o \
                               $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ireschedule/batch -o $@ $< \
	   $(BUILD)/host/reschedule/batch/cbtest_compose.o $(LIBCBTRACE) \
	   $(HOST_LDLIBS)

# Unit test of the failing program's words (cbtest_lastline.c).
$(BUILD)/tests/cbtest_said: tests/unit/cbtest_said.c \
                            $(BUILD)/host/reschedule/batch/cbtest_lastline.o
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ireschedule/batch -o $@ $< \
	   $(BUILD)/host/reschedule/batch/cbtest_lastline.o

all: $(BIN)/cbtest
# tests/t/60-cbtest.t drives the real stages on build/programs/ and
# stand-ins made with replay_mkschedule.
CHECK_DEPS += $(BIN)/cbtest $(BIN)/cbtrace $(BIN)/cbpredict $(BIN)/cbreplay \
              $(BUILD)/tests/replay_mkschedule $(BUILD)/tests/cbtest_compose \
              $(BUILD)/tests/cbtest_said
