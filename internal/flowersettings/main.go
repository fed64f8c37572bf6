package flowersettings

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/flowerhooks/flower/internal/capture"
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
       flower-settings --print-capture-script

Wires flower's hooks into a Claude Code settings file, or removes them; run by
install.sh. Every other key and hook is kept, new entries are laid out as the
file is, a second run changes nothing, and the previous file is kept as
FILE.flower.bak. Layers: 1 delegate-guard, 2 index-guard, 3 spill-guard, and
capture (opt-in, needs 3): BASH_ENV in "env" names the capture script, kept in
DIR/../share/flower/capture.bash, and spill-guard runs on PostToolUseFailure.`

// Main runs flower-settings and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	settings := c.Flags.String("settings", "", "the settings `file` to change")
	bin := c.Flags.String("bin", "", "the `folder` holding the installed binaries")
	layersFlag := c.Flags.String("layers", "", "comma-separated `layers` to wire: 1,2,3 and capture (default: those already wired, else 1,2,3)")
	uninstall := c.Flags.Bool("uninstall", false, "remove flower's entries for --bin")
	dryRun := c.Flags.Bool("dry-run", false, "print what would change, write nothing")
	check := c.Flags.Bool("check", false, "only check that --settings can be merged and written")
	print := c.Flags.Bool("print", false, "print the hooks block for --layers and exit")
	printScript := c.Flags.Bool("print-capture-script", false, "print the capture layer's bash script (what BASH_ENV names) and exit")
	if code, done := c.Parse(args); done {
		return code
	}
	if c.Flags.NArg() > 0 {
		return c.Fail(fmt.Errorf("unexpected argument %q (see --help)", c.Flags.Arg(0)))
	}
	if *printScript {
		if _, err := io.WriteString(stdout, capture.Script); err != nil {
			return c.Fail(err)
		}
		return hook.ExitOK
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
		if err := writable(*settings, path, info); err != nil {
			return c.Fail(errors.New(err.Error() + wayOut))
		}
		fmt.Fprintf(stdout, "%s: can be merged\n", path)
		return hook.ExitOK
	}
	if dir == "" {
		return c.Fail(errors.New("--bin DIR is required: the folder holding the installed binaries"))
	}

	var out []byte
	var changes []Change
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
		// A dry run is asked before the binaries are installed.
		for _, b := range Binaries(layers) {
			if fi, err := os.Stat(filepath.Join(dir, b)); !*dryRun && (err != nil || !fi.Mode().IsRegular()) {
				return c.Fail(fmt.Errorf("%s is not in %s (needed by --layers %s); build and install it first, or leave its layer out",
					b, dir, strings.Join(layers, ",")))
			}
		}
		if script := capture.ScriptPath(dir); slices.Contains(layers, LayerCapture) && !*dryRun {
			if fi, err := os.Stat(script); err != nil || !fi.Mode().IsRegular() {
				return c.Fail(fmt.Errorf("%s is not there (needed by --layers %s); install.sh puts it there, or write it with --print-capture-script",
					script, strings.Join(layers, ",")))
			}
		}
		out, changes, err = Install(doc, dir, layers)
	}
	if err != nil {
		return c.Fail(fmt.Errorf("%s: %v", path, err))
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", path)
	var left []string
	for _, ch := range changes {
		fmt.Fprintln(&b, ch)
		if prog, _ := splitProgram(ch.Command); ch.Kind == Move && filepath.IsAbs(prog) && !slices.Contains(left, filepath.Dir(prog)) {
			left = append(left, filepath.Dir(prog))
		}
	}
	for _, d := range left {
		fmt.Fprintf(&b, "note: no hook runs the binaries in %s any more; ./install.sh --uninstall --prefix %s removes them\n", d, filepath.Dir(d))
	}
	switch {
	case len(changes) == 0 && *uninstall:
		fmt.Fprintf(&b, "no flower hooks for %s, nothing to remove\n", dir)
	case len(changes) == 0:
		fmt.Fprintf(&b, "already wired (layers %s), nothing to change\n", strings.Join(layers, ","))
	case *dryRun:
		fmt.Fprintln(&b, "dry run: nothing written")
	default:
		backup, err := write(*settings, path, doc, out, info)
		if err != nil {
			return c.Fail(errors.New(err.Error() + wayOut))
		}
		if backup != "" {
			fmt.Fprintf(&b, "wrote %s (the previous version is in %s)\n", path, backup)
		} else {
			fmt.Fprintf(&b, "wrote %s\n", path)
		}
	}
	if err := writable(*settings, path, info); err != nil && *dryRun && !*uninstall {
		block, err2 := Example(dir, layers)
		if err2 != nil {
			return c.Fail(err2)
		}
		fmt.Fprintf(&b, "note: %v; add these hooks where it is generated:\n%s", err, block)
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return c.Fail(err)
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
// no previous file). settings is the file as the user named it, for messages.
func write(settings, path string, prev, out []byte, info os.FileInfo) (string, error) {
	if err := writable(settings, path, info); err != nil {
		return "", err
	}
	if info == nil {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", cannotWrite(settings, path, err)
		}
		if err := atomicfile.Write(path, out, newFilePerm); err != nil {
			return "", cannotWrite(settings, path, err)
		}
		return "", nil
	}
	perm := info.Mode().Perm()
	backup := path + BackupSuffix
	if err := atomicfile.Write(backup, prev, perm); err != nil {
		return "", cannotWrite(settings, path, err)
	}
	if err := atomicfile.Write(path, out, perm); err != nil {
		return "", cannotWrite(settings, path, err)
	}
	return backup, nil
}

// writable checks, without changing anything, that path can be replaced as
// write replaces it: a file created beside it and renamed over it. A file
// without the owner's write permission counts as one its owner does not want
// changed (home-manager makes settings.json a link to such a file in a
// read-only store), even where the folder would allow the rename.
func writable(settings, path string, info os.FileInfo) error {
	if info != nil && info.Mode().Perm()&0o200 == 0 {
		return cannotWrite(settings, path, fmt.Errorf("it is read-only (mode %04o)", info.Mode().Perm()))
	}
	// A link to a file not there (a dotfile manager's, before its
	// checkout): the rename would replace the link with a plain file.
	if dest, err := os.Readlink(path); info == nil && err == nil {
		return cannotWrite(settings, path, fmt.Errorf("it is a symlink to %s, which does not exist (create that file with {} in it)", dest))
	}
	dir := filepath.Dir(path)
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	f, err := os.CreateTemp(dir, ".flower-check-*")
	if err != nil {
		return cannotWrite(settings, path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// cannotWrite says why the settings file cannot be changed, naming the file
// a link leads to, and what to do instead.
func cannotWrite(settings, path string, err error) error {
	what := settings
	if abs, aerr := filepath.Abs(settings); aerr == nil && abs != path {
		what = fmt.Sprintf("%s (a link to %s)", settings, path)
	}
	// The folder where a file could not be made: for a settings file not
	// created yet, the nearest one that exists.
	folder := filepath.Dir(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		folder = filepath.Dir(pe.Path)
	}
	switch {
	case errors.Is(err, syscall.EROFS):
		err = fmt.Errorf("%s is on a read-only file system", folder)
	case errors.Is(err, fs.ErrPermission):
		err = fmt.Errorf("%s is not writable by you", folder)
	}
	return fmt.Errorf("cannot write %s: %v", what, err)
}

// wayOut follows a cannotWrite error when nothing was written.
const wayOut = "; nothing was changed. Name another file with --settings, or run with --dry-run " +
	"to print the hooks and add them where this file is generated"
