# predict/z3.mk: the Z3 feasibility check behind `cbpredict --z3` (issue 5)
# and its unit tests.  Included by the top Makefile after predict/module.mk.
# Users of the check link $(Z3_CHECK_OBJS) (or the -san list) and $(Z3_LDLIBS).
# The check needs only cbtrace.h's types, not libcbtrace.a, and the
# happens-before edges of predict/hb.c (with predict/util.c), which
# cbpredict has among its own objects and the unit tests link from
# $(Z3_HB_OBJS).

Z3_CHECK_SRCS     := predict/z3_check.c predict/z3_window.c predict/z3_window_sync.c \
                     predict/z3_window_reads.c predict/z3_window_util.c \
                     predict/z3_encode.c predict/z3_model.c predict/z3_schedule.c
Z3_CHECK_OBJS     := $(Z3_CHECK_SRCS:%.c=$(BUILD)/host/%.o)
Z3_CHECK_SAN_OBJS := $(Z3_CHECK_SRCS:%.c=$(BUILD)/san/%.o)
Z3_LDLIBS         := -lz3
Z3_HB_OBJS        := $(BUILD)/host/predict/hb.o $(BUILD)/host/predict/util.o
Z3_HB_SAN_OBJS    := $(BUILD)/san/predict/hb.o $(BUILD)/san/predict/util.o

# `cbpredict --z3` (its link rule is in predict/module.mk).
$(BIN)/cbpredict: $(Z3_CHECK_OBJS)

$(Z3_CHECK_OBJS) $(Z3_CHECK_SAN_OBJS) $(BUILD)/host/tests/unit/z3_%.o $(BUILD)/san/tests/unit/z3_%.o: HOST_CFLAGS += -Ipredict

$(BUILD)/tests/z3_unit: $(BUILD)/host/tests/unit/z3_unit.o $(Z3_CHECK_OBJS) $(Z3_HB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(Z3_LDLIBS)

# Z3 itself is not instrumented; ASan and UBSan check our side of the API.
$(BUILD)/tests/z3_unit-san: $(BUILD)/san/tests/unit/z3_unit.o $(Z3_CHECK_SAN_OBJS) $(Z3_HB_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(Z3_LDLIBS)

.PHONY: z3-check
z3-check: $(BUILD)/tests/z3_unit $(BUILD)/tests/z3_unit-san

CHECK_DEPS += $(BUILD)/tests/z3_unit $(BUILD)/tests/z3_unit-san

# z3-bench: the check on every candidate of a trace, as `cbpredict --z3`
# will run it (scripts/bench-z3.sh).  Needs cbpredict's analysis objects.
$(BUILD)/tools/z3-bench: $(BUILD)/host/tests/unit/z3_bench.o $(Z3_CHECK_OBJS) $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(Z3_LDLIBS) $(HOST_LDLIBS)

# The happens-before model pinned, the clocks and Z3 agreeing on it
# (tests/unit/predict_hb.c): cbpredict's analysis objects and the check.
$(BUILD)/tests/predict_hb: $(BUILD)/host/tests/unit/predict_hb.o $(Z3_CHECK_OBJS) $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(Z3_LDLIBS) $(HOST_LDLIBS)

$(BUILD)/tests/predict_hb-san: $(BUILD)/san/tests/unit/predict_hb.o $(Z3_CHECK_SAN_OBJS) $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(Z3_LDLIBS) $(HOST_LDLIBS)

CHECK_DEPS += $(BUILD)/tests/predict_hb $(BUILD)/tests/predict_hb-san
