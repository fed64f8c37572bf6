package flowersettings

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/hook"
)

const name = "flower-settings"

// BackupSuffix names the copy of the previous settings file kept next to it.
const BackupSuffix = ".flower.bak"

// newFilePerm is the mode of a settings file flower creates: settings files
// may come to hold secrets (env blocks with API keys), so only the owner reads.
const newFilePerm = 0o600

const usage = `Usage: flower-settings --settings FILE --bin DIR [--layers 1,2,3] [--dry-run]
       flower-settings --settings FILE --bin DIR --uninstall [--dry-run]
       flower-settings --settings FILE --check
       flower-settings --print [--bin DIR] [--layers LIST]

Wires flower's hooks into a Claude Code settings file, or removes them. Every
other key and hook is kept; a second run changes nothing; the previous file is
kept as FILE.flower.bak. Layers: 1 delegate-guard, 2 index-guard, 3
spill-guard, glance (opt-in) glance-check --hook, which auto-approves
read-only Bash glances.`

// Main runs flower-settings and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	settings := c.Flags.String("settings", "", "the settings `file` to change")
	bin := c.Flags.String("bin", "", "the `folder` holding the installed binaries")
	layersFlag := c.Flags.String("layers", "", "comma-separated `layers` to wire: 1,2,3,glance (default: those already wired, else 1,2,3)")
	uninstall := c.Flags.Bool("uninstall", false, "remove flower's entries for --bin")
	dryRun := c.Flags.Bool("dry-run", false, "print what would change, write nothing")
	check := c.Flags.Bool("check", false, "only check that --settings can be merged")
	print := c.Flags.Bool("print", false, "print the hooks block for --layers and exit")
	if code, done := c.Parse(args); done {
		return code
	}
	if c.Flags.NArg() > 0 {
		return c.Fail(fmt.Errorf("unexpected argument %q (see --help)", c.Flags.Arg(0)))
	}
	var layers []string
	if *layersFlag != "" {
		var err error
		if layers, err = ParseLayers(*layersFlag); err != nil {
			return c.Fail(err)
		}
	}
	dir := ""
	if *bin != "" {
		abs, err := filepath.Abs(*bin)
		if err != nil {
			return c.Fail(err)
		}
		dir = abs
	}

	if *print {
		if layers == nil {
			layers = DefaultLayers
		}
		out, err := Example(dir, layers)
		if err != nil {
			return c.Fail(err)
		}
		if _, err := stdout.Write(out); err != nil {
			return c.Fail(err)
		}
		return hook.ExitOK
	}
	if *settings == "" {
		return c.Fail(errors.New("--settings FILE is required (see --help)"))
	}
	path, err := target(*settings)
	if err != nil {
		return c.Fail(err)
	}
	doc, info, err := read(path)
	if err != nil {
		return c.Fail(err)
	}
	if info != nil {
		if err := Validate(doc); err != nil {
			return c.Fail(fmt.Errorf("%s: %v", path, err))
		}
	}
	if *check {
		fmt.Fprintf(stdout, "%s: can be merged\n", path)
		return hook.ExitOK
	}
	if dir == "" {
		return c.Fail(errors.New("--bin DIR is required: the folder holding the installed binaries"))
	}

	var out []byte
	var changes []Change
	var notes []string
	if *uninstall {
		if info == nil {
			fmt.Fprintf(stdout, "%s: does not exist, nothing to remove\n", path)
			return hook.ExitOK
		}
		out, changes, err = Uninstall(doc, dir)
	} else {
		if layers == nil {
			if layers, err = WiredLayers(doc, dir); err != nil {
				return c.Fail(fmt.Errorf("%s: %v", path, err))
			}
			if len(layers) == 0 {
				layers = DefaultLayers
			}
		}
		for _, b := range Binaries(layers) {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || !fi.Mode().IsRegular() {
				miss := fmt.Sprintf("%s is not in %s (needed by --layers %s)", b, dir, strings.Join(layers, ","))
				if !*dryRun {
					return c.Fail(fmt.Errorf("%s; build and install it first, or leave its layer out", miss))
				}
				notes = append(notes, "note: "+miss)
			}
		}
		out, changes, err = Install(doc, dir, layers)
		for _, s := range Strays(doc, dir) {
			notes = append(notes, "note: also wired, not from "+dir+" (left alone; it fires besides flower's): "+s)
		}
	}
	if err != nil {
		return c.Fail(fmt.Errorf("%s: %v", path, err))
	}

	fmt.Fprintf(stdout, "%s:\n", path)
	for _, ch := range changes {
		fmt.Fprintln(stdout, ch)
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	switch {
	case len(changes) == 0 && *uninstall:
		fmt.Fprintf(stdout, "no flower hooks for %s, nothing to remove\n", dir)
	case len(changes) == 0:
		fmt.Fprintf(stdout, "already wired (layers %s), nothing to change\n", strings.Join(layers, ","))
	case *dryRun:
		fmt.Fprintln(stdout, "dry run: nothing written")
	default:
		backup, err := write(path, doc, out, info)
		if err != nil {
			return c.Fail(err)
		}
		if backup != "" {
			fmt.Fprintf(stdout, "wrote %s (the previous version is in %s)\n", path, backup)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", path)
		}
	}
	return hook.ExitOK
}

// Example is the settings document {"hooks": {…}} for layers, with commands
// into dir (bare names when dir is empty), laid out as Claude Code lays out
// its settings.
func Example(dir string, layers []string) ([]byte, error) {
	out, _, err := Install([]byte("{}\n"), dir, layers)
	return out, err
}

// PluginHooks is hooks/hooks.json of the Claude Code plugin: the default
// layers, calling the binaries by name, as go install and install.sh put them
// on PATH.
func PluginHooks() ([]byte, error) {
	doc := "{\n  \"description\": \"flower: delegate-guard (layer 1), index-guard (layer 2), spill-guard (layer 3). " +
		"The binaries must be on PATH (go install or install.sh); a missing one disables its hook.\"\n}\n"
	out, _, err := Install([]byte(doc), "", DefaultLayers)
	return out, err
}

// target is the file to read and write for the --settings value: absolute,
// and through a symlink (dotfile managers link settings.json), so the atomic
// rename replaces the linked file instead of the link.
func target(settings string) (string, error) {
	path, err := filepath.Abs(settings)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case err == nil:
		return real, nil
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	}
	return "", err
}

// read returns the file's bytes and info; a missing file reads as an empty
// settings object and nil info.
func read(path string) ([]byte, os.FileInfo, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}\n"), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	doc, err := os.ReadFile(path)
	return doc, info, err
}

// write saves the previous version as path+BackupSuffix, then replaces path
// with out, both atomically, and returns the backup's path ("" when there was
// no previous file).
func write(path string, prev, out []byte, info os.FileInfo) (string, error) {
	if info == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", err
		}
		return "", atomicfile.Write(path, out, newFilePerm)
	}
	perm := info.Mode().Perm()
	backup := path + BackupSuffix
	if err := atomicfile.Write(backup, prev, perm); err != nil {
		return "", fmt.Errorf("saving the backup %s: %v; nothing was changed", backup, err)
	}
	return backup, atomicfile.Write(path, out, perm)
}
