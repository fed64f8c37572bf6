#!/bin/sh
# install.sh builds flower's commands from this checkout into $PREFIX/bin and
# wires their hooks into Claude Code's settings; --uninstall takes out exactly
# that again. The settings file is merged by flower-settings (cmd/), in Go:
# every other key and hook stays, new entries are laid out as the file is, a
# second run changes nothing, the previous file is kept as
# <file>.flower.bak, and a file that is not valid JSON or cannot be written
# stops the run before anything is installed. flower-settings is installed
# with the commands, so that --uninstall needs no Go.
set -eu

usage() {
	cat <<'EOF'
Usage: ./install.sh [--from ARCHIVE|DIR] [--layers 1,2,3] [--prefix DIR] [--settings FILE | --project] [--disable-plugin] [--dry-run]
       ./install.sh --uninstall [--prefix DIR] [--settings FILE | --project] [--dry-run]

Builds static binaries of every command in cmd/ into PREFIX/bin (or takes
them from a release archive: no Go needed), checks that each runs, puts the
capture layer's script in PREFIX/share/flower, and wires the hooks of the
chosen layers into a Claude Code settings file with absolute paths to those
binaries.

  --from PATH      install prebuilt binaries instead of building: a release
                   archive (flower-VERSION-OS-ARCH.tar.gz, checked against the
                   SHA256SUMS beside it when there is one) or a folder of
                   binaries. Run from an unpacked release archive, install.sh
                   takes the bin/ beside it.
  --layers LIST    layers wired after the run, comma-separated:
                     1  delegate-guard: the main thread delegates hands-on work
                     2  index-guard: the workbench index in every session and subagent
                     3  spill-guard: long tool results spilled to the workbench
                     capture  opt-in, with 3: the whole output of every Bash
                        call, failing or not, kept in the workbench (a bash
                        script named by BASH_ENV runs before each call;
                        docs/REFERENCE.md)
                   Entries of layers not listed are removed. Default: the layers
                   already wired, or 1,2,3 on a first install.
  --prefix DIR     install into DIR/bin (default $PREFIX, else ~/.local)
  --settings FILE  the settings file (default $CLAUDE_CONFIG_DIR/settings.json,
                   else ~/.claude/settings.json)
  --project        use .claude/settings.json of the git repository around the
                   current directory (shared with everyone who clones it; for
                   yourself only, --settings .claude/settings.local.json)
  --disable-plugin turn off flower's Claude Code plugin where the settings file
                   enables it: with both, every hook runs twice (asked when
                   run at a terminal)
  --dry-run        print what would change, change nothing
  --uninstall      remove flower's hook entries (and the capture layer's
                   BASH_ENV) from the settings file, its binaries from
                   PREFIX/bin and its script from PREFIX/share/flower, nothing
                   else (needs no Go)
  -h, --help       this text

Installing from a checkout needs Go (go.mod names the version; an older go
fetches it); from a release archive it needs nothing but sh and tar.
EOF
}

say() { printf '%s\n' "$*"; }
die() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

# tilde expands ~ and ~/… as a shell does for a word, also after --flag=,
# where the shell leaves it alone.
tilde() {
	case $1 in
	"~") printf '%s\n' "$HOME" ;;
	"~/"*) printf '%s/%s\n' "$HOME" "${1#"~/"}" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

: "${HOME:?HOME is not set}"
prefix=${PREFIX:-$HOME/.local}
settings=
project=false
layers=
dry=false
uninstall=false
plugin=
from=
while [ $# -gt 0 ]; do
	case $1 in
	--prefix | --settings | --layers | --from)
		[ $# -ge 2 ] || die "$1 needs a value (see --help)"
		case $1 in
		--prefix) prefix=$2 ;;
		--settings) settings=$2 ;;
		--layers) layers=$2 ;;
		--from) from=$2 ;;
		esac
		shift 2
		continue
		;;
	--prefix=*) prefix=${1#*=} ;;
	--settings=*) settings=${1#*=} ;;
	--layers=*) layers=${1#*=} ;;
	--from=*) from=${1#*=} ;;
	--project) project=true ;;
	--dry-run) dry=true ;;
	--disable-plugin) plugin=--disable-plugin ;;
	--uninstall) uninstall=true ;;
	-h | --help)
		usage
		exit 0
		;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	shift
done
prefix=$(tilde "$prefix")
settings=$(tilde "$settings")
from=$(tilde "$from")

# The layers are checked here, before anything is built.
if [ -n "$layers" ]; then
	$uninstall && die "--layers and --uninstall: --uninstall removes every layer"
	spill=false capture=false
	for l in $(printf '%s\n' "$layers" | tr ',' ' '); do
		case $l in
		1 | 2) ;;
		3) spill=true ;;
		capture) capture=true ;;
		glance) die "--layers glance: the glance layer (glance-check --hook) was retired; flower no longer approves commands, Claude Code's own permission check decides" ;;
		4) die "--layers 4: layer four is the prune-session command, not a hook; it is installed with every layer (known layers: 1,2,3,capture)" ;;
		*) die "--layers: unknown layer \"$l\" (known: 1,2,3,capture)" ;;
		esac
	done
	if $capture && ! $spill; then
		die "--layers $layers: the capture layer needs layer 3, whose spill-guard shows the model what it captured (use --layers 1,2,3,capture)"
	fi
fi

here=$(pwd)
src=$(cd "$(dirname "$0")" && pwd)
absolute() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s\n' "$here/$1" ;;
	esac
}

if [ -n "$settings" ] && $project; then
	die "--settings and --project name two files; give one"
fi
if $project; then
	root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) ||
		die "--project: $here is not inside a git repository"
	settings=$root/.claude/settings.json
elif [ -z "$settings" ]; then
	settings=${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json
fi
settings=$(absolute "$settings")
bindir=$(absolute "$prefix")/bin
# The capture layer's script, named by BASH_ENV: beside bin/ as
# flower-settings expects it (package capture, ScriptPath).
sharedir=$(absolute "$prefix")/share/flower
script=$sharedir/capture.bash

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flower-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# Where prebuilt binaries come from: --from (a release archive, unpacked
# here, or a folder), or the bin/ beside this script in an unpacked release
# archive (which has no cmd/). Without them the commands are built.
prebuilt=
if [ -n "$from" ]; then
	from=$(absolute "$from")
	case $from in
	*.tar.gz | *.tgz)
		[ -f "$from" ] || die "--from $from: no such archive"
		sums=$(dirname "$from")/SHA256SUMS
		if [ -f "$sums" ]; then
			want=$(grep " $(basename "$from")\$" "$sums" | cut -d' ' -f1)
			[ -n "$want" ] || die "--from: $sums does not list $(basename "$from")"
			got=$({ sha256sum "$from" 2>/dev/null || shasum -a 256 "$from"; } | cut -d' ' -f1)
			[ "$got" = "$want" ] || die "--from: $(basename "$from") does not match its checksum in $sums (got $got): a damaged or altered download"
			say "checked $(basename "$from") against $sums"
		fi
		mkdir "$tmp/archive"
		tar -xzf "$from" -C "$tmp/archive" || die "--from: cannot unpack $from"
		for d in "$tmp"/archive/*/bin "$tmp"/archive/bin; do
			[ -d "$d" ] && prebuilt=$d && break
		done
		[ -n "$prebuilt" ] || die "--from: $from holds no bin/ folder"
		;;
	*)
		[ -d "$from" ] || die "--from $from: neither a .tar.gz archive nor a folder"
		prebuilt=$from
		;;
	esac
elif [ ! -d "$src/cmd" ] && [ -d "$src/bin" ]; then
	prebuilt=$src/bin
fi

# The commands: the folders of cmd/ in a checkout, else the binaries of the
# release: the hooks and tools, and flower-settings, which edits settings
# files for this script.
names=
if [ -n "$prebuilt" ]; then
	for f in "$prebuilt"/*; do
		[ -f "$f" ] && names="$names $(basename "$f")"
	done
else
	for d in "$src"/cmd/*/; do
		names="$names $(basename "$d")"
	done
fi
case $names in "" | *"*"*) die "no commands in ${prebuilt:-$src/cmd}" ;; esac

# The first line of the capture script (internal/capture/capture.bash).
script_head='# flower capture: keeps the whole output of every Bash call of Claude Code.'

# The folders an install creates (PREFIX/bin, PREFIX/share/flower, and any
# missing above them) are listed in $made, so that --uninstall removes them
# again once empty, and no folder that was there before.
made_list=$sharedir/.folders
made=
mkdirs() { # dir
	d=$1
	while [ ! -d "$d" ]; do
		made="$made$d
"
		d=$(dirname "$d")
	done
	mkdir -p "$1"
}

# --version is answered by every flower command as "<name> <version>"; a
# binary that does not is not one this script installed.
is_flower() { # path name
	out=$("$1" --version 2>/dev/null) || return 1
	case $out in "$2 "*) return 0 ;; esac
	return 1
}

have_go() {
	go=${GO:-go}
	command -v "$go" >/dev/null 2>&1
}

build() { # what...
	(cd "$src" && CGO_ENABLED=0 "$go" build -trimpath -ldflags='-s -w' -o "$tmp/" "$@") ||
		die "go build failed"
}

# settings_tool runs flower-settings on the settings file. Its one error line
# is shown as this script's: the user ran install.sh.
tool=$tmp/flower-settings
settings_tool() {
	if "$tool" --settings "$settings" --bin "$bindir" "$@" 2>"$tmp/err"; then
		return 0
	fi
	sed 's/^flower-settings: /install.sh: /' "$tmp/err" >&2
	exit 1
}

if $uninstall; then
	# The installed flower-settings edits the file it wired; without it
	# (an install older than it), one is built, which needs Go.
	if is_flower "$bindir/flower-settings" flower-settings; then
		tool=$bindir/flower-settings
	elif [ -n "$prebuilt" ] && is_flower "$prebuilt/flower-settings" flower-settings; then
		tool=$prebuilt/flower-settings
	elif have_go; then
		build ./cmd/flower-settings
	else
		die "neither $bindir/flower-settings nor Go to build it: remove by hand every hook in $settings whose command starts with $bindir/, then the binaries in $bindir (see README, Uninstall)"
	fi
	if $dry; then
		settings_tool --uninstall --dry-run
	else
		settings_tool --check >/dev/null
		settings_tool --uninstall
	fi
	say "$bindir:"
	removed=0
	for name in $names; do
		f=$bindir/$name
		[ -e "$f" ] || continue
		if ! is_flower "$f" "$name"; then
			say "  left alone: $f does not answer --version as flower's $name"
			continue
		fi
		removed=$((removed + 1))
		$dry || rm -f "$f"
		say "- $f"
	done
	# The script goes only if it is flower's: its first line says so.
	if [ -f "$script" ] && [ ! -L "$script" ]; then
		if [ "$(sed -n 1p "$script")" = "$script_head" ]; then
			removed=$((removed + 1))
			$dry || rm -f "$script"
			say "- $script"
		else
			say "  left alone: $script is not flower's capture script"
		fi
	fi
	# The folders the installs made, deepest first, each only once empty.
	if [ -f "$made_list" ] && [ ! -L "$made_list" ]; then
		awk '{ print length($0) " " $0 }' "$made_list" | sort -rn | cut -d' ' -f2- | uniq >"$tmp/made"
		$dry || rm -f "$made_list"
		while IFS= read -r d; do
			case $d in /*) ;; *) continue ;; esac
			if $dry; then
				say "- $d/ (if empty)"
			elif rmdir "$d" 2>/dev/null; then
				say "- $d/"
			fi
		done <"$tmp/made"
	fi
	[ "$removed" -gt 0 ] || say "no flower binaries, nothing to remove"
	if $dry; then say "dry run: nothing removed"; fi
	exit 0
fi

if [ -n "$prebuilt" ]; then
	say "installing the prebuilt commands in $prebuilt"
	for name in $names; do
		cp "$prebuilt/$name" "$tmp/$name" && chmod 755 "$tmp/$name" || die "cannot copy $prebuilt/$name"
		is_flower "$tmp/$name" "$name" ||
			die "$prebuilt/$name does not run here (--version): an archive for another system? ($(uname -s) $(uname -m))"
	done
else
	have_go || die "Go is needed to build flower (https://go.dev/dl/); without it, install a release archive with --from"
	say "building flower's commands with $("$go" env GOVERSION) (the first build downloads and compiles its dependencies: a minute or two)..."
	started=$(date +%s)
	build ./cmd/...
	say "built in $(($(date +%s) - started)) s"
	for name in $names; do
		is_flower "$tmp/$name" "$name" || die "the freshly built $name does not run (--version)"
	done
fi

# A settings file that cannot be merged or written stops the run before any
# binary is installed. A dry run goes on: it prints the hooks to add by hand.
$dry || settings_tool --check >/dev/null

# put installs the built file $1 as $2 with mode $3 unless it is there
# already, and says so. Copied beside, then renamed: a hook running the old
# file right now keeps it, and no hook ever sees half a file.
changed=0
put() {
	if cmp -s "$1" "$2"; then
		return 1
	fi
	changed=$((changed + 1))
	say "+ $2"
	$dry && return 1
	mkdirs "$(dirname "$2")"
	beside=$(dirname "$2")/.$(basename "$2").tmp.$$
	cp "$1" "$beside"
	chmod "$3" "$beside"
	mv -f "$beside" "$2"
}

say "$bindir:"
for name in $names; do
	if put "$tmp/$name" "$bindir/$name" 755; then
		is_flower "$bindir/$name" "$name" || die "$bindir/$name does not run after installing it"
	fi
done
# The capture script, written by the binary that embeds it, goes in as the
# binaries do; settings name it only when the capture layer is wired.
"$tmp/flower-settings" --print-capture-script >"$tmp/capture.bash" ||
	die "the freshly built flower-settings cannot print the capture script"
put "$tmp/capture.bash" "$script" 644 || true
[ "$changed" -gt 0 ] || say "binaries up to date"
if [ -n "$made" ]; then
	printf '%s' "$made" >>"$made_list"
fi

set --
[ -n "$layers" ] && set -- --layers "$layers"
# flower's plugin wires the same hooks: asked at a terminal whether to turn
# it off, else named in a note.
if [ -z "$plugin" ] && ! $dry && [ -t 0 ] && [ -t 1 ] &&
	settings_tool --dry-run "$@" | grep -q "^note: flower's plugin"; then
	printf "flower's Claude Code plugin is on in %s too: with these hooks, every hook would run twice.\nTurn the plugin off there? [y/N] " "$settings"
	read -r answer || answer=
	case $answer in [yY]*) plugin=--disable-plugin ;; esac
fi
[ -n "$plugin" ] && set -- "$@" "$plugin"
if $dry; then
	settings_tool --dry-run "$@"
	say "dry run: no binary installed"
else
	settings_tool "$@"
fi

case ":$PATH:" in
*":$bindir:"*) ;;
*) say "note: $bindir is not on your PATH. The hooks do not need it (they use absolute paths); to run prune-session, context-audit, glance-check or flower-config by name, add it: export PATH=\"$bindir:\$PATH\"" ;;
esac
