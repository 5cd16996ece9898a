# lwIP 2.1.3, compiled from Debian's source package with our own options in
# stack/lwip/.  The source is fetched once into a cache outside build/
# (LWIP_CACHE, default .cache/lwip, git-ignored) that `make clean` keeps:
# the first build fetches it (tools/install-deps.sh --lwip), later ones and
# builds after `make clean` reuse it.  `make distclean` removes it too.
#
# The cache is never modified.  The build copies its src/ into
# $(BUILD)/lwip-src and applies our patches (stack/lwip/patches/*.patch, in
# name order, each documented in its own header) to the copy, whose files
# are then all newer than the objects made from an older copy; lwIP and every
# file that includes lwIP's headers compile from the copy.  A changed patch
# makes a fresh copy.
LWIP_CACHE  ?= .cache/lwip
# Written by install-deps.sh last, once the source is complete.
LWIP_STAMP  := $(LWIP_CACHE)/.fetched
LWIP_PATCHES := $(sort $(wildcard stack/lwip/patches/*.patch))
LWIP_TREE   := $(BUILD)/lwip-src
LWIP_SRC    := $(LWIP_TREE)/src
# Written once the copy is patched: what objects wait for.
LWIP_READY  := $(LWIP_TREE)/.patched
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

# The patched copy: made next to its place and moved in whole, so that an
# interrupted build never leaves a half-patched tree.
$(LWIP_READY): $(LWIP_STAMP) $(LWIP_PATCHES) tools/lwip.mk
	$(call say,PATCH,lwIP into $(LWIP_TREE))
	rm -rf $(LWIP_TREE) $(LWIP_TREE).tmp
	mkdir -p $(LWIP_TREE).tmp
	cp -R $(LWIP_CACHE)/src $(LWIP_TREE).tmp/src
	for p in $(LWIP_PATCHES); do \
	    patch -s -p1 -d $(LWIP_TREE).tmp --no-backup-if-mismatch < $$p || \
	        { echo "make: $$p does not apply to lwIP in $(LWIP_CACHE)" >&2; exit 1; }; \
	done
	touch $(LWIP_TREE).tmp/.patched
	mv $(LWIP_TREE).tmp $(LWIP_TREE)

# The sources come with the patched copy.
$(LWIP_FILES:%=$(LWIP_SRC)/%): $(LWIP_READY) ;

$(OBJ)/lwip/%.o: $(LWIP_SRC)/%.c stack/lwip/lwipopts.h stack/lwip/lwippools.h stack/lwip/arch/cc.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(CFLAGS) -w $(LWIP_CFLAGS) -c $< -o $@

$(LIBLWIP): $(LWIP_OBJS) $(OBJ)/stack/checksum.o
	$(AR) rcs $@ $^
