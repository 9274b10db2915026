# proto/: generated protobuf-c code for trace.proto, compiled into libcbtrace.
PROTO_GEN_C := $(BUILD)/proto/trace.pb-c.c
PROTO_GEN_H := $(BUILD)/proto/trace.pb-c.h

$(PROTO_GEN_C) $(PROTO_GEN_H) &: proto/trace.proto | deps
	@mkdir -p $(BUILD)/proto
	protoc-c --proto_path=proto --c_out=$(BUILD)/proto proto/trace.proto

$(BUILD)/host/proto/trace.pb-c.o: $(PROTO_GEN_C) $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@
$(BUILD)/san/proto/trace.pb-c.o: $(PROTO_GEN_C) $(PROTO_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_CFLAGS) -c $< -o $@
