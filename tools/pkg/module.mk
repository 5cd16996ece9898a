# tools/pkg/: what a user's program builds on, and how it is installed.
#
#   build/lib/libini.{a,so}   the compute-node API (ini/cn/ini_cn.h) and what it
#                             needs: configuration, segment, rings, fabric
#   build/lib/libmgs.{a,so}   MGS and par.h (mgs/mgs.h, mgs/par.h), on libini
#   build/lib/ini.pc          the pkg-config file, for the prefix of the build
#
# The libraries are compiled a second time, into build/obj-lib, as
# position-independent code and WITHOUT link-time optimisation: the
# objects the tree's own programs link (build/obj, -flto=auto) hold only
# GCC's intermediate language, which no other compiler (clang) and no
# other GCC version can link.  The installed static libraries hold plain
# machine code, so any C compiler links them.
#
# `make install` honours PREFIX (default /usr/local), DESTDIR, and BINDIR,
# LIBDIR, INCLUDEDIR, MANDIR, DOCDIR below them.  It installs the user
# programs (Water as ini-water), both libraries, the public headers under
# an `ini/` prefix (#include <ini/ini_cn.h>), ini.pc, the man pages of
# man/, the configurations of conf/ (share/ini/conf), Water's data file
# (share/ini/water), the Wireshark dissector where Wireshark and tshark
# load it (WIRESHARK_PLUGINDIR, below), the examples' source and the
# documents (share/doc/ini), and runs ldconfig (as root, without DESTDIR);
# tools/pkg/install.sh says what and why.  `make uninstall`, with the same
# variables, removes all of it.  `make deb` builds the Debian package
# (debian/, tools/pkg/deb.sh).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/ini
INSTALL    ?= install
# The Debian package also installs the systemd unit (debian/rules).
PKG_SYSTEMD ?= 0
SYSTEMD_UNITDIR ?= /lib/systemd/system
# The dissector (tools/wireshark/ini.lua) goes where the installed
# Wireshark loads Lua plugins from: its global Lua plugin folder, as
# `tshark -G folders` names it (Debian: /usr/lib/<multiarch>/wireshark/
# plugins, what the .deb uses too).  A Wireshark under /usr looks neither
# in /usr/local nor in LIBDIR, so a `make install` elsewhere would leave
# captures undecoded (UDP port 7400 then reads as QUIC).  Without tshark,
# $(LIBDIR)/wireshark/plugins, where a Wireshark built with the same
# PREFIX looks.  Like the systemd unit, it may lie outside PREFIX; the
# install's list records it, so uninstall removes it.
WIRESHARK_PLUGINDIR ?= $(or $(shell tshark -G folders 2>/dev/null | \
	awk -F'\t' '/^Global Lua Plugins:/ { print $$2 }'),$(LIBDIR)/wireshark/plugins)

LIB_DIR  := $(BUILD)/lib
LIB_OBJ  := $(BUILD)/obj-lib
# The tree's flags without link-time optimisation, plus -fPIC.
LIB_CFLAGS = $(filter-out -flto%,$(CFLAGS)) -fno-lto -fPIC
LIB_LDFLAGS = $(filter-out -flto%,$(LDFLAGS))
SOVERSION := $(firstword $(subst ., ,$(INI_VERSION)))

# The headers a user includes, self-contained as a set: ini_cn.h includes
# config.h, which includes ini_policy.h; mgs.h and par.h stand alone.  C and
# C++ (extern "C"; no _Atomic in them: tests/integration/install.sh).
PUBLIC_HEADERS := ini/cn/ini_cn.h ini/config/config.h loadbal/ini_policy.h mgs/mgs.h mgs/par.h

$(LIB_OBJ)/ini/%.o: INC = $(INI_LIB_INC)
$(LIB_OBJ)/mgs/%.o: INC = -Imgs $(INI_LIB_INC)
$(LIB_OBJ)/%.o: %.c | $(LWIP_READY)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(LIB_CFLAGS) -c $< -o $@
$(LIB_OBJ)/mgs/par_threads_renamed.o: mgs/par_threads.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(LIB_CFLAGS) $(foreach f,$(PAR_RENAMED_FUNCS),-Dpar_$(f)=par_threads_$(f)) -c $< -o $@

PUB_LIBINI_OBJS := $(LIBINI_SRCS:%.c=$(LIB_OBJ)/%.o)
PUB_LIBMGS_OBJS := $(LIBMGS_SRCS:%.c=$(LIB_OBJ)/%.o) $(LIB_OBJ)/mgs/par_threads_renamed.o

$(LIB_DIR)/libini.a: $(PUB_LIBINI_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^
$(LIB_DIR)/libmgs.a: $(PUB_LIBMGS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# Shared libraries: libNAME.so.VERSION, soname libNAME.so.MAJOR, and the
# two links.  Each records what it needs (libconfig; libmgs needs libini,
# which it finds beside itself, $ORIGIN: a program linked with a run path
# to libmgs's directory only would not find libini otherwise, since a run
# path does not carry over to a library's own dependencies).
$(LIB_DIR)/libini.so.$(INI_VERSION): $(PUB_LIBINI_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libini.so.$(SOVERSION) $(LIB_LDFLAGS) -o $@ $^ $(CONFIG_LIBS) -lpthread -lm
	ln -sf libini.so.$(INI_VERSION) $(LIB_DIR)/libini.so.$(SOVERSION)
	ln -sf libini.so.$(SOVERSION) $(LIB_DIR)/libini.so
$(LIB_DIR)/libmgs.so.$(INI_VERSION): $(PUB_LIBMGS_OBJS) $(LIB_DIR)/libini.so.$(INI_VERSION)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libmgs.so.$(SOVERSION) $(LIB_LDFLAGS) -o $@ $(PUB_LIBMGS_OBJS) \
	    -L$(LIB_DIR) -lini -Wl,-rpath,'$$ORIGIN' -lpthread -lm
	ln -sf libmgs.so.$(INI_VERSION) $(LIB_DIR)/libmgs.so.$(SOVERSION)
	ln -sf libmgs.so.$(SOVERSION) $(LIB_DIR)/libmgs.so

# A program linked with ini.pc records the libraries' directory as its run
# path (-Wl,-rpath), unless that is one the dynamic linker searches anyway
# (/usr/lib, /lib and their multiarch directories: the Debian package): so
# it runs from a `make install` with no ldconfig, no LD_LIBRARY_PATH, on
# any host that has the same install, whatever the PREFIX.
MULTIARCH := $(shell $(CC_TOOL) -print-multiarch 2>/dev/null)
SYSTEM_LIBDIRS := /usr/lib /lib $(if $(MULTIARCH),/usr/lib/$(MULTIARCH) /lib/$(MULTIARCH))
PC_RPATH = $(if $(filter $(SYSTEM_LIBDIRS),$(LIBDIR)),,-Wl,-rpath,$${libdir} )
$(LIB_DIR)/ini.pc: tools/pkg/ini.pc.in VERSION
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))|; s|@VERSION@|$(INI_VERSION)|' \
	    -e 's|@RPATH@|$(PC_RPATH)|' $< > $@

PUBLIC_LIBS := $(LIB_DIR)/libini.a $(LIB_DIR)/libmgs.a $(LIB_DIR)/libini.so.$(INI_VERSION) \
               $(LIB_DIR)/libmgs.so.$(INI_VERSION)

.PHONY: libs install uninstall deb
build-all: libs
libs: $(PUBLIC_LIBS)

# ini.pc records PREFIX: rebuilt at every install, never stale.
PKG_VARS = PKG_BINS='$(BINS)' PKG_LIB_DIR='$(LIB_DIR)' PKG_VERSION='$(INI_VERSION)' PKG_SOVERSION='$(SOVERSION)' \
	PKG_HEADERS='$(PUBLIC_HEADERS)' INSTALL='$(INSTALL)' DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' \
	BINDIR='$(BINDIR)' LIBDIR='$(LIBDIR)' INCLUDEDIR='$(INCLUDEDIR)' DATADIR='$(DATADIR)' \
	MANDIR='$(MANDIR)' DOCDIR='$(DOCDIR)' BUILD='$(BUILD)' PKG_SYSTEMD='$(PKG_SYSTEMD)' \
	SYSTEMD_UNITDIR='$(SYSTEMD_UNITDIR)' WIRESHARK_PLUGINDIR='$(WIRESHARK_PLUGINDIR)'
install: build-all libs
	rm -f $(LIB_DIR)/ini.pc
	$(MAKE) --no-print-directory $(LIB_DIR)/ini.pc
	$(call say,INSTALL,$(DESTDIR)$(PREFIX))
	$(PKG_VARS) bash tools/pkg/install.sh install

# What install put, by its list (DATADIR/ini/installed), with the same
# PREFIX (and DESTDIR) as the install.
uninstall:
	$(call say,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(PKG_VARS) bash tools/pkg/install.sh uninstall

deb:
	bash tools/pkg/deb.sh $(DEB_FLAGS)

-include $(shell find $(LIB_OBJ) -name '*.d' 2>/dev/null)
