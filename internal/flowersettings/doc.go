// Package flowersettings is flower-settings, the command install.sh runs to
// wire flower's hooks into a Claude Code settings file and to unwire them.
//
// The hook entries of every layer are listed once, in Catalog; the
// repository's settings.example.json and hooks/hooks.json are generated from
// it. An entry belongs to flower when its command runs one of flower's
// binaries from the --bin folder (the path, alone or followed by arguments),
// under the entry's event: that survives the user editing its timeout,
// matcher or arguments. The same binary run from elsewhere under that event
// (an install with another --prefix, a name found on PATH) is moved to --bin
// rather than wired a second time. Retired entries (glance-check --hook) are
// removed wherever they are.
//
// The file is read with gjson and edited in place: every other key and hook
// keeps its bytes and order, a new entry is laid out like the values around
// it (one per line with the file's indentation, or compact in a compact
// file), and removing an entry removes exactly what adding it added.
//
// Stdin is not read. Stdout lists the changes, one line each ("+" added,
// "-" removed, "~" moved), notes (binaries no hook runs any more), then what
// was written; a dry run on a file that cannot be written also prints the
// hooks block to add where that file is generated.
//
// Flags:
//
//	--settings FILE  the settings file (required unless --print); created if missing
//	--bin DIR        the folder holding the installed binaries (required to
//	                 change a file); hook commands are absolute paths into it
//	--layers LIST    comma-separated layers to have wired after the run: 1, 2,
//	                 3 and capture (opt-in, needs 3). Entries of the other
//	                 layers are removed. Default: the layers already wired,
//	                 else 1,2,3
//	--uninstall      remove every flower entry for --bin, nothing else
//	--dry-run        print the changes, write nothing
//	--check          only check that the file can be merged (valid JSON, a
//	                 "hooks" object of arrays) and written, write nothing
//	--print          print the hooks block for --layers (bare binary names
//	                 without --bin) and exit
//	--print-capture-script
//	                 print the capture layer's bash script and exit
//
// The capture layer is a hook entry (spill-guard on PostToolUseFailure) and
// a value in the settings "env": BASH_ENV names the capture script, which
// must be at DIR/../share/flower/capture.bash for --bin DIR (install.sh puts
// it there). A BASH_ENV of the user's own moves to FLOWER_BASH_ENV, which the
// script reads after itself, and moves back when the layer goes; an "env"
// the layer made goes with it.
//
// A changed file is written atomically, after the previous version is saved
// as FILE.flower.bak; a file that needs no change is not written. A
// symlinked settings file is written through the link.
//
// Exit codes: 0 done (or nothing to do); 1 with one stderr line when the file
// is not valid JSON or not shaped like a settings file, cannot be written (a
// read-only file, a link into a read-only store), a binary of a chosen layer
// is missing from --bin, or a flag is wrong. Nothing is written then. Never 2.
package flowersettings
