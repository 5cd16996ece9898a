# lwIP 2.1.3, compiled from Debian's source package with our own options in
# stack/lwip/.  The source is fetched once into a cache outside build/
# (LWIP_CACHE, default .cache/lwip, git-ignored) that `make clean` keeps:
# the first build fetches it (tools/install-deps.sh --lwip), later ones and
# builds after `make clean` reuse it.  `make distclean` removes it too.
LWIP_CACHE  ?= .cache/lwip
LWIP_SRC    := $(LWIP_CACHE)/src
# Written by install-deps.sh last, once the source is complete.
LWIP_STAMP  := $(LWIP_CACHE)/.fetched
LWIP_CFLAGS := -I$(LWIP_SRC)/include -Istack/lwip
LWIP_FILES  := $(addprefix core/,init.c def.c inet_chksum.c ip.c mem.c memp.c netif.c pbuf.c udp.c timeouts.c stats.c) \
               $(addprefix core/ipv4/,ip4.c ip4_addr.c ip4_frag.c)
LWIP_OBJS   := $(LWIP_FILES:%.c=$(OBJ)/lwip/%.o)
LIBLWIP     := $(BUILD)/liblwip.a

.PHONY: lwip
lwip: $(LIBLWIP)

$(LWIP_STAMP):
	$(call say,FETCH,lwIP 2.1.3 into $(LWIP_CACHE))
	LWIP_CACHE='$(LWIP_CACHE)' bash tools/install-deps.sh --lwip || \
	    { echo "make: could not fetch lwIP into $(LWIP_CACHE): run 'bash tools/install-deps.sh' (as root, with access to deb.debian.org), then 'make'" >&2; exit 1; }

# The sources come with the stamp (order-only: their own dates count).
$(LWIP_FILES:%=$(LWIP_SRC)/%): | $(LWIP_STAMP) ;

$(OBJ)/lwip/%.o: $(LWIP_SRC)/%.c stack/lwip/lwipopts.h stack/lwip/lwippools.h stack/lwip/arch/cc.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(CFLAGS) -w $(LWIP_CFLAGS) -c $< -o $@

$(LIBLWIP): $(LWIP_OBJS) $(OBJ)/stack/checksum.o
	$(AR) rcs $@ $^
