# reschedule/cbtest.mk: `cbtest`, the batch driver that runs record, predict
# and every forced replay over a whole test suite (cbtest.h: the parts).
# Included from reschedule/module.mk.

CBTEST_SRCS := reschedule/cbtest_options.c reschedule/cbtest_suite.c \
               reschedule/cbtest_pool.c reschedule/cbtest_pipeline.c \
               reschedule/cbtest_progress.c reschedule/cbtest_summary.c \
               reschedule/cbtest_json.c reschedule/cbtest_report.c \
               reschedule/cbtest_state.c reschedule/cbtest_wrap.c \
               reschedule/cbtest_merge.c reschedule/cbtest_bugs.c \
               reschedule/cbtest_flow.c reschedule/cbtest_html.c \
               reschedule/cbtest_explore.c reschedule/cbtest_compose.c
CBTEST_OBJS := $(CBTEST_SRCS:%.c=$(BUILD)/host/%.o)

$(BIN)/cbtest: $(BUILD)/host/reschedule/cbtest_main.o $(CBTEST_OBJS) \
               $(LIBCBTRACE)
	@mkdir -p $(BIN)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(CBTEST_OBJS) $(LIBCBTRACE) \
	   $(HOST_LDLIBS) -lm

# Unit test of the composition of explored schedules.
$(BUILD)/tests/cbtest_compose: tests/unit/cbtest_compose.c \
                               $(BUILD)/host/reschedule/cbtest_compose.o $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Ireschedule -o $@ $< $(BUILD)/host/reschedule/cbtest_compose.o \
	   $(LIBCBTRACE) $(HOST_LDLIBS)

all: $(BIN)/cbtest
# tests/t/60-cbtest.t drives the real stages on build/programs/ and
# stand-ins made with replay_mkschedule.
CHECK_DEPS += $(BIN)/cbtest $(BIN)/cbtrace $(BIN)/cbpredict $(BIN)/cbreplay \
              $(BUILD)/tests/replay_mkschedule $(BUILD)/tests/cbtest_compose
