# vgtool/: the cbtools Valgrind tool (record and replay modes) and its preload
# library of pthread wrappers.  Built with Valgrind's own conventions: no libc,
# linked statically against libcoregrind and libvex (DESIGN.md, "Facts about
# building a Valgrind tool here").  `make tool` builds lib/cbtools/.

VG_INCDIR   := /usr/include/valgrind
VG_LIBDIR   := /usr/lib/x86_64-linux-gnu/valgrind
VG_EXECDIR  := /usr/libexec/valgrind

CB_TOOL_CFLAGS := -m64 -O2 -g -fno-strict-aliasing -fno-builtin \
   -fno-stack-protector -fomit-frame-pointer -I$(VG_INCDIR) -Iproto -Ivgtool \
   -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
   -Wall -Wextra -Wno-unused-parameter -Werror
CB_TOOL_LDFLAGS := -m64 -static -nodefaultlibs -nostartfiles -u _start \
   -Wl,--build-id=none -Wl,-Ttext-segment=0x58000000
CB_TOOL_LIBS := $(VG_LIBDIR)/libcoregrind-amd64-linux.a \
   $(VG_LIBDIR)/libvex-amd64-linux.a -lgcc $(VG_LIBDIR)/libgcc-sup-amd64-linux.a

CB_PRELOAD_CFLAGS := -m64 -O2 -g -fpic -fno-builtin -fno-ipa-icf \
   -fno-stack-protector -fno-omit-frame-pointer -I$(VG_INCDIR) -Iproto -Ivgtool \
   -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
   -Wall -Werror
CB_PRELOAD_LDFLAGS := -m64 -nodefaultlibs -shared -Wl,-z,interpose,-z,initfirst

CB_TOOL_SRCS := vgtool/cb_main.c vgtool/cb_output.c vgtool/cb_objects.c \
   vgtool/cb_threads.c vgtool/cb_stacks.c vgtool/cb_blocks.c vgtool/cb_inline.c \
   vgtool/cb_instrument.c vgtool/cb_classify.c vgtool/cb_emit.c \
   vgtool/cb_sync.c vgtool/cb_syncobj.c vgtool/cb_replay.c vgtool/cb_replay_status.c \
   vgtool/cb_names.c vgtool/cb_ident.c vgtool/cb_split.c vgtool/cb_deadlock.c \
   vgtool/cb_dinfo.c vgtool/cb_fastreq.c vgtool/cb_plan_file.c \
   vgtool/cb_porder.c vgtool/cb_pattern.c vgtool/cb_spin.c vgtool/cb_repeat.c \
   vgtool/cb_rmw.c vgtool/cb_hunt.c
CB_TOOL_OBJS := $(CB_TOOL_SRCS:%.c=$(BUILD)/vgtool/%.o)
CB_TOOL_HDRS := $(wildcard vgtool/*.h) proto/cb_wire.h

CB_PRELOAD_SRCS := vgtool/cb_preload.c vgtool/cb_preload_cond.c \
   vgtool/cb_preload_sem.c \
   vgtool/cb_preload_c11.c vgtool/cb_preload_alloc.c vgtool/cb_preload_misc.c \
   vgtool/cb_preload_interpose.c \
   vgtool/cb_preload_glib.c vgtool/cb_preload_libc.c \
   vgtool/cb_preload_strmem.c

CB_TOOL_EXE     := $(TOOLDIR)/cbtools-amd64-linux
CB_TOOL_PRELOAD := $(TOOLDIR)/vgpreload_cbtools-amd64-linux.so
CB_TOOL_LINKS   := $(TOOLDIR)/vgpreload_core-amd64-linux.so $(TOOLDIR)/default.supp

.PHONY: tool
tool: $(CB_TOOL_EXE) $(CB_TOOL_PRELOAD) $(CB_TOOL_LINKS)
all: tool

$(BUILD)/vgtool/%.o: %.c $(CB_TOOL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CB_TOOL_CFLAGS) -c $< -o $@

$(CB_TOOL_EXE): $(CB_TOOL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CB_TOOL_LDFLAGS) -o $@ $(CB_TOOL_OBJS) $(CB_TOOL_LIBS)

$(CB_TOOL_PRELOAD): $(CB_PRELOAD_SRCS) $(CB_TOOL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CB_PRELOAD_CFLAGS) $(CB_PRELOAD_LDFLAGS) -o $@ $(CB_PRELOAD_SRCS)

$(TOOLDIR)/vgpreload_core-amd64-linux.so:
	@mkdir -p $(dir $@)
	ln -sf $(VG_EXECDIR)/vgpreload_core-amd64-linux.so $@

$(TOOLDIR)/default.supp:
	@mkdir -p $(dir $@)
	ln -sf $(VG_EXECDIR)/default.supp $@
