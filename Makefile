# chatdir on one person's machine:
#   make install PREFIX=~/.local      release build, then the binary, man pages, completions, unit
#   make uninstall PREFIX=~/.local    removes exactly those files
# The binary is installed stripped (install -s): the release build's symbols and debug
# information are most of its size. STRIP= (empty) installs it as built, for a debugger:
#   make install PREFIX=~/.local STRIP=
# BIN=path/to/chatdir installs that binary instead, and SWIFT_BUILD= (empty) skips the build:
#   make install PREFIX=/tmp/p SWIFT_BUILD= BIN=.build/debug/chatdir
# DESTDIR is honoured for packaging (the unit still names PREFIX/bin/chatdir).

PREFIX ?= /usr/local
# A ~ that the shell left alone (zsh, or PREFIX="~/.local") is the home directory.
override PREFIX := $(patsubst ~/%,$(HOME)/%,$(patsubst ~,$(HOME),$(PREFIX)))
DESTDIR ?=
# install's flag that strips the binary as it copies it; empty keeps the debug information.
STRIP ?= -s
SWIFT ?= swift
# --disable-local-rpath: the release binary links the Swift libraries statically, so an rpath of
# $$ORIGIN would only make the loader look for libc and the others beside it at every start.
# CHATDIR_RELEASE: the release tuning (static runtime, lld, the order file; Package.swift).
SWIFT_BUILD ?= CHATDIR_RELEASE=1 $(SWIFT) build -c release --product chatdir --disable-local-rpath
BIN ?= $(shell $(SWIFT) build -c release --show-bin-path)/chatdir

ROOT := $(DESTDIR)$(PREFIX)
BINDIR := $(ROOT)/bin
MAN1 := $(ROOT)/share/man/man1
MAN5 := $(ROOT)/share/man/man5
BASHDIR := $(ROOT)/share/bash-completion/completions
ZSHDIR := $(ROOT)/share/zsh/site-functions
FISHDIR := $(ROOT)/share/fish/vendor_completions.d
UNITDIR := $(ROOT)/share/systemd/user

FILES := "$(BINDIR)/chatdir" "$(MAN1)/chatdir.1" "$(MAN5)/chatdir-store.5" "$(BASHDIR)/chatdir" \
	"$(ZSHDIR)/_chatdir" "$(FISHDIR)/chatdir.fish" "$(UNITDIR)/chatdir-sync@.service"

.PHONY: all build install uninstall
all: build

build:
	$(SWIFT_BUILD)

install: build
	install -d "$(BINDIR)" "$(MAN1)" "$(MAN5)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)" "$(UNITDIR)"
	install -m 755 $(STRIP) "$(BIN)" "$(BINDIR)/chatdir"
	"$(BIN)" manual chatdir > "$(MAN1)/chatdir.1"
	"$(BIN)" manual store > "$(MAN5)/chatdir-store.5"
	"$(BIN)" completion bash > "$(BASHDIR)/chatdir"
	"$(BIN)" completion zsh > "$(ZSHDIR)/_chatdir"
	"$(BIN)" completion fish > "$(FISHDIR)/chatdir.fish"
	sed 's|@BINDIR@|$(PREFIX)/bin|g' contrib/systemd/chatdir-sync@.service > "$(UNITDIR)/chatdir-sync@.service"
	chmod 644 "$(MAN1)/chatdir.1" "$(MAN5)/chatdir-store.5" "$(BASHDIR)/chatdir" "$(ZSHDIR)/_chatdir" \
		"$(FISHDIR)/chatdir.fish" "$(UNITDIR)/chatdir-sync@.service"
	@echo "installed chatdir in $(ROOT); for the sync worker of a store:"
	@echo '  systemctl --user daemon-reload'
	@echo '  systemctl --user enable --now "chatdir-sync@$$(systemd-escape --path ~/chats).service"'

uninstall:
	rm -f $(FILES)
