# lwIP 2.1.3, compiled from Debian's source package (fetched into build/lwip
# by tools/install-deps.sh) with our own options in stack/lwip/.
LWIP_SRC    := build/lwip/src
LWIP_CFLAGS := -I$(LWIP_SRC)/include -Istack/lwip
LWIP_FILES  := $(addprefix core/,init.c def.c inet_chksum.c ip.c mem.c memp.c netif.c pbuf.c udp.c timeouts.c stats.c) \
               $(addprefix core/ipv4/,ip4.c ip4_addr.c ip4_frag.c icmp.c)
LWIP_OBJS   := $(LWIP_FILES:%.c=$(OBJ)/lwip/%.o)
LIBLWIP     := $(BUILD)/liblwip.a

$(OBJ)/lwip/%.o: $(LWIP_SRC)/%.c stack/lwip/lwipopts.h stack/lwip/lwippools.h stack/lwip/arch/cc.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(CFLAGS) -w $(LWIP_CFLAGS) -c $< -o $@

$(LIBLWIP): $(LWIP_OBJS) $(OBJ)/stack/checksum.o
	$(AR) rcs $@ $^
