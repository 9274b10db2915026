# cbtools: a predictive concurrency-bug finder for C/pthreads programs.
# `make` builds every command into bin/ (runnable in place); `make check` runs
# the TAP tests with prove; `make fuzz` fuzzes the readers (tests/fuzz/);
# `make bench` measures; `make example` runs the
# whole pipeline on the bundled example.  Each folder adds its own rules in
# its module.mk; this file holds what they share.

PREFIX   ?= /usr/local
CC       ?= gcc
BUILD    := build
BIN      := bin
# The tool and its preload library, where the commands find them by default.
TOOLDIR  := lib/cbtools

HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g \
               -Iproto -Itrace $(EXTRA_CFLAGS)
# The generated protobuf-c header, seen by the trace library only
# (trace/module.mk): every other folder uses cbtrace.h's types.
PROTO_CFLAGS := -I$(BUILD)/proto
HOST_LDLIBS := -lprotobuf-c -lpthread
# Host code is also built and tested under ASan and UBSan (tests/module.mk).
SAN_CFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=all

# The Valgrind tool is written for amd64 (VEX's amd64 guest state: the
# replay gate's time slice, the client-request registers, split
# instructions) and links Valgrind's amd64 libraries.  Elsewhere: one clear
# line, not a page of compiler errors.
CB_ARCH := $(shell uname -m)
ifneq ($(CB_ARCH),x86_64)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(error cbtools: this machine is $(CB_ARCH); the cbtools Valgrind tool is built for amd64 (x86_64) Linux only)
endif
endif

.PHONY: all deps check bench example install clean fuzz
all: deps

# Installs missing packages on a fresh machine (apt-get), once.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: scripts/setup-deps.sh
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh
	@touch $@

include proto/module.mk
include trace/module.mk
include vgtool/module.mk
include predict/module.mk
include predict/z3.mk
include reschedule/module.mk
include tests/fuzz/module.mk
include tests/module.mk

$(BUILD)/host/%.o: %.c | deps $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/san/%.o: %.c | deps $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/$(TOOLDIR) \
	           $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN)/* $(DESTDIR)$(PREFIX)/bin/
	cp -P $(TOOLDIR)/* $(DESTDIR)$(PREFIX)/$(TOOLDIR)/
	install -m 644 vgtool/cbtools.h $(DESTDIR)$(PREFIX)/include/

clean:
	rm -rf $(BUILD) $(BIN) lib
