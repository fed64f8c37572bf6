// Package flowersettings is flower-settings, the command install.sh runs to
// wire flower's hooks into a Claude Code settings file and to unwire them.
//
// The hook entries of every layer are listed once, in Catalog; the
// repository's settings.example.json and hooks/hooks.json are generated from
// it. An entry belongs to flower when its command runs one of flower's
// binaries from the --bin folder (the path, alone or followed by arguments),
// under the entry's event: that survives the user editing its timeout,
// matcher or arguments, and never claims a hook flower did not write.
//
// The file is read and patched with gjson/sjson: every other key and hook
// stays as it was, in its order. A file laid out as JSON.stringify lays it
// out (how Claude Code writes it) keeps that layout; see reformat.
//
// Stdin is not read. Stdout lists the changes, one line each ("+" added,
// "-" removed), notes (hooks running a flower binary from another folder,
// which would fire besides flower's; binaries missing in a dry run), then
// what was written.
//
// Flags:
//
//	--settings FILE  the settings file (required unless --print); created if missing
//	--bin DIR        the folder holding the installed binaries (required to
//	                 change a file); hook commands are absolute paths into it
//	--layers LIST    comma-separated layers to have wired after the run: 1, 2,
//	                 3 and glance (glance-check --hook auto-approves read-only
//	                 Bash glances; opt-in). Entries of the other layers are
//	                 removed. Default: the layers already wired, else 1,2,3
//	--uninstall      remove every flower entry for --bin, nothing else
//	--dry-run        print the changes, write nothing
//	--check          only check that the file can be merged (valid JSON, a
//	                 "hooks" object of arrays), write nothing
//	--print          print the hooks block for --layers (bare binary names
//	                 without --bin) and exit
//
// A changed file is written atomically, after the previous version is saved
// as FILE.flower.bak; a file that needs no change is not written. A
// symlinked settings file is written through the link.
//
// Exit codes: 0 done (or nothing to do); 1 with one stderr line when the file
// is not valid JSON or not shaped like a settings file, a binary of a chosen
// layer is missing from --bin, or a flag is wrong. Nothing is written then.
// Never 2.
package flowersettings
