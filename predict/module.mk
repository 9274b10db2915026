# predict/: cbpredict (PENELOPE sections 3 and 4), its unit tests, the
# synthetic trace generator and the benchmark script's inputs.
PREDICT_SRCS := predict/util.c predict/escape.c predict/lockset.c predict/hb.c \
                predict/vclock.c predict/transactions.c predict/cutpoints.c predict/cut_blocks.c predict/cut_store.c predict/cut_decide.c predict/deadlocks.c predict/orders.c predict/site_writers.c predict/readsfrom.c predict/prefix_order.c predict/rank.c predict/rank_seen.c predict/rank_failed.c predict/cures.c predict/cure_class.c predict/cure_moves.c predict/cure_wake.c predict/deadlock_again.c predict/two_vars.c predict/fresh.c predict/symmetric.c \
                predict/synthesis.c predict/close_prefix.c predict/read_first.c predict/region3.c predict/dlk_tail.c predict/alternates.c predict/held_check.c predict/analyze.c predict/schedule_out.c predict/write_schedules.c \
                predict/report.c predict/plan_check.c predict/explore.c \
                predict/explore_report.c
PREDICT_OBJS := $(PREDICT_SRCS:%.c=$(BUILD)/host/%.o)
PREDICT_SAN_OBJS := $(PREDICT_SRCS:%.c=$(BUILD)/san/%.o)

all: $(BIN)/cbpredict $(BUILD)/tools/cb-gen-trace

# cbpredict links the Z3 check (--z3): its objects are added as prerequisites
# in predict/z3.mk, which defines them and is included after this file.
$(BIN)/cbpredict: $(BUILD)/host/predict/cbpredict_main.o $(BUILD)/host/predict/z3_predict.o \
                  $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(Z3_LDLIBS) $(HOST_LDLIBS)

$(BUILD)/tools/cb-gen-trace: $(BUILD)/host/predict/gen_trace.o $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

# Unit tests, plain and under ASan+UBSan.
$(BUILD)/tests/predict_unit: $(BUILD)/host/tests/unit/predict_unit.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_unit_san: $(BUILD)/san/tests/unit/predict_unit.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_rank: $(BUILD)/host/tests/unit/predict_rank.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_rank_san: $(BUILD)/san/tests/unit/predict_rank.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# The program's own lock words (trace/spinlocks.c) and what prediction
# makes of them.
$(BUILD)/tests/predict_lockwords: $(BUILD)/host/tests/unit/predict_lockwords.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_lockwords_san: $(BUILD)/san/tests/unit/predict_lockwords.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Lock-order inversions: gate locks, long cycles (deadlocks.c, dlk_tail.c).
$(BUILD)/tests/predict_deadlock: $(BUILD)/host/tests/unit/predict_deadlock.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_deadlock_san: $(BUILD)/san/tests/unit/predict_deadlock.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Order violations: the other writers they hold back (site_writers.c).
$(BUILD)/tests/predict_orders: $(BUILD)/host/tests/unit/predict_orders.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_orders_san: $(BUILD)/san/tests/unit/predict_orders.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Reader/writer locks: two read holds do not exclude each other (lockset.c).
$(BUILD)/tests/predict_rwlock: $(BUILD)/host/tests/unit/predict_rwlock.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_rwlock_san: $(BUILD)/san/tests/unit/predict_rwlock.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# The path to f kept the recorded one, new paths first (synthesis.c, fresh.c).
$(BUILD)/tests/predict_paths: $(BUILD)/host/tests/unit/predict_paths.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/tests/predict_paths_san: $(BUILD)/san/tests/unit/predict_paths.o $(PREDICT_SAN_OBJS) $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Delay schedules and their dedup (predict/explore.c, trace/ordering.c).
$(BUILD)/tests/predict_explore: $(BUILD)/host/tests/unit/predict_explore.o $(PREDICT_OBJS) $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(HOST_LDLIBS)

$(BUILD)/host/predict/%.o $(BUILD)/san/predict/%.o $(BUILD)/host/tests/unit/predict_%.o $(BUILD)/san/tests/unit/predict_%.o: HOST_CFLAGS += -Ipredict

CHECK_DEPS += $(BIN)/cbpredict $(BUILD)/tests/predict_unit $(BUILD)/tests/predict_unit_san \
              $(BUILD)/tests/predict_rank $(BUILD)/tests/predict_rank_san \
              $(BUILD)/tests/predict_lockwords $(BUILD)/tests/predict_lockwords_san \
              $(BUILD)/tests/predict_deadlock $(BUILD)/tests/predict_deadlock_san \
              $(BUILD)/tests/predict_orders $(BUILD)/tests/predict_orders_san \
              $(BUILD)/tests/predict_rwlock $(BUILD)/tests/predict_rwlock_san \
              $(BUILD)/tests/predict_paths $(BUILD)/tests/predict_paths_san \
              $(BUILD)/tests/predict_explore \
              $(BUILD)/tools/cb-gen-trace
