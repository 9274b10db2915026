# trace/: the trace library (trace/*.c: libcbtrace.a, and a sanitizer build
# of it) and, in trace/cmd/, the `cbtrace` command built on it.  Other
# module.mk files, included after this one, link with
# `$(LIBCBTRACE) $(HOST_LDLIBS)` (or the -san pair under sanitizers).

CBTRACE_CMD_SRCS := $(wildcard trace/cmd/*.c)
LIBCBTRACE_SRCS  := $(wildcard trace/*.c)
LIBCBTRACE_OBJS  := $(LIBCBTRACE_SRCS:%.c=$(BUILD)/host/%.o) \
                    $(BUILD)/host/proto/trace.pb-c.o
LIBCBTRACE_SAN_OBJS := $(LIBCBTRACE_SRCS:%.c=$(BUILD)/san/%.o) \
                       $(BUILD)/san/proto/trace.pb-c.o

# Protobuf stays in here: only the library's objects (and its unit test)
# find the generated header.
$(LIBCBTRACE_OBJS) $(LIBCBTRACE_SAN_OBJS): HOST_CFLAGS += $(PROTO_CFLAGS)

LIBCBTRACE     := $(BUILD)/libcbtrace.a
LIBCBTRACE_SAN := $(BUILD)/libcbtrace-san.a

$(LIBCBTRACE): $(LIBCBTRACE_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(LIBCBTRACE_SAN): $(LIBCBTRACE_SAN_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The command.
CBTRACE_CMD_OBJS := $(CBTRACE_CMD_SRCS:%.c=$(BUILD)/host/%.o)
$(BIN)/cbtrace: $(CBTRACE_CMD_OBJS) $(LIBCBTRACE)
	@mkdir -p $(BIN)
	$(CC) $(HOST_CFLAGS) -o $@ $(CBTRACE_CMD_OBJS) $(LIBCBTRACE) $(HOST_LDLIBS)

# Unit tests of the library, built plain and under ASan+UBSan.
$(BUILD)/tests/trace_unit: tests/unit/trace_unit.c $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(PROTO_CFLAGS) -o $@ $< $(LIBCBTRACE) $(HOST_LDLIBS)

$(BUILD)/tests/trace_unit-san: tests/unit/trace_unit.c $(LIBCBTRACE_SAN)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(PROTO_CFLAGS) $(SAN_CFLAGS) -o $@ $< \
	   $(LIBCBTRACE_SAN) $(HOST_LDLIBS)

# The ordering digest of schedule files, for the shell tests.
$(BUILD)/tests/schedule_digest: tests/unit/schedule_digest.c $(LIBCBTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(LIBCBTRACE) $(HOST_LDLIBS)

all: $(LIBCBTRACE) $(BIN)/cbtrace
CHECK_DEPS += $(LIBCBTRACE) $(LIBCBTRACE_SAN) $(BIN)/cbtrace \
              $(BUILD)/tests/trace_unit $(BUILD)/tests/trace_unit-san \
              $(BUILD)/tests/schedule_digest
