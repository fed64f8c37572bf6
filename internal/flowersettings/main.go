// Package flowersettings is flower-settings, the editor install.sh runs to
// wire flower's hooks into a Claude Code settings file and take them out,
// every other byte kept.
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

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/config"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
)

const name = "flower-settings"

// BackupSuffix names the copy of the user's file from before flower.
const BackupSuffix = ".flower.bak"

const usage = `Usage: flower-settings --settings FILE --bin DIR [--layers 1,2,3] [--dry-run]
       flower-settings --settings FILE --bin DIR --uninstall [--dry-run]
       flower-settings --settings FILE --check
       flower-settings --print [--bin DIR] [--layers LIST]
       flower-settings --print-capture-script

Wires flower's hooks into a Claude Code settings file, or removes them; run by
install.sh. Every other key and hook is kept, new entries are laid out as the
file is, a second run changes nothing, and the file as it was before flower was
wired into it is kept as FILE.flower.bak. Layers: 1 delegate-guard, 2 index-guard, 3 spill-guard, and
capture (opt-in, needs 3): BASH_ENV in "env" names the capture script, kept in
DIR/../share/flower/capture.bash, and spill-guard runs on PostToolUseFailure.`

// Main runs flower-settings and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	var o options
	c.Flags.StringVar(&o.settings, "settings", "", "the settings `file` to change")
	c.Flags.StringVar(&o.bin, "bin", "", "the `folder` holding the installed binaries")
	c.Flags.StringVar(&o.layers, "layers", "", "comma-separated `layers` to wire: 1,2,3 and capture (default: those already wired, else 1,2,3)")
	c.Flags.BoolVar(&o.uninstall, "uninstall", false, "remove flower's entries for --bin")
	c.Flags.BoolVar(&o.disablePlugin, "disable-plugin", false, "turn off flower's Claude Code plugin in the file, whose hooks would run each of these a second time")
	c.Flags.BoolVar(&o.dryRun, "dry-run", false, "print what would change, write nothing")
	c.Flags.BoolVar(&o.check, "check", false, "only check that --settings can be merged and written")
	c.Flags.BoolVar(&o.print, "print", false, "print the hooks block for --layers and exit")
	c.Flags.BoolVar(&o.printScript, "print-capture-script", false, "print the capture layer's bash script (what BASH_ENV names) and exit")
	if code, done := c.Parse(args); done {
		return code
	}
	out, err := o.run(c.Flags.Args())
	if err == nil {
		_, err = io.WriteString(stdout, out)
	}
	if err != nil {
		return c.Fail(err)
	}
	return hook.ExitOK
}

type options struct {
	settings, bin, layers                                       string
	uninstall, dryRun, check, print, printScript, disablePlugin bool
}

// run does what the flags ask and returns what to print.
func (o options) run(args []string) (string, error) {
	var layers []string
	var err error
	switch {
	case len(args) > 0:
		return "", fmt.Errorf("unexpected argument %q (see --help)", args[0])
	case o.printScript:
		return capture.Script, nil
	case o.layers != "":
		if layers, err = ParseLayers(o.layers); err != nil {
			return "", err
		}
	}
	dir := o.bin
	if dir != "" {
		if dir, err = filepath.Abs(dir); err != nil {
			return "", err
		}
	}
	if o.print {
		out, err := Example(dir, cmpLayers(layers, DefaultLayers))
		return string(out), err
	}
	if o.settings == "" {
		return "", errors.New("--settings FILE is required (see --help)")
	}
	path, doc, info, err := read(o.settings)
	switch {
	case err != nil:
		return "", err
	case o.check:
		if err := writable(o.settings, path, info); err != nil {
			return "", errors.New(err.Error() + wayOut)
		}
		return path + ": can be merged\n", nil
	case dir == "":
		return "", errors.New("--bin DIR is required: the folder holding the installed binaries")
	case o.uninstall && info == nil:
		return path + ": does not exist, nothing to remove\n", nil
	}

	var out []byte
	var changes []Change
	if o.uninstall {
		out, changes, err = Uninstall(doc, dir)
	} else {
		if layers == nil {
			wired, _ := WiredLayers(doc, dir)
			layers = cmpLayers(wired, DefaultLayers)
		}
		if !o.dryRun { // a dry run is asked before the binaries are installed
			if err := installed(dir, layers); err != nil {
				return "", err
			}
		}
		out, changes, err = Install(doc, dir, layers)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	// The plugin wires the same hooks: with both, each runs twice.
	var plugins []string
	gjson.GetBytes(out, "enabledPlugins").ForEach(func(k, v gjson.Result) bool {
		if name, _, _ := strings.Cut(k.Str, "@"); name == "flower" && v.Type == gjson.True && !o.uninstall {
			plugins = append(plugins, k.Str)
		}
		return true
	})
	if o.disablePlugin {
		for _, key := range plugins {
			out = setValue(out, "enabledPlugins."+gjson.Escape(key), false)
			changes = append(changes, Change{Kind: Move, Entry: Entry{Event: "enabledPlugins", Layer: "plugin"},
				Command: key + " true", To: "false", Why: "its hooks would run each of these a second time"})
		}
		plugins = nil
	}
	if jsoncheck.Check(string(out), maxDepth) != nil {
		return "", errors.New("internal error: the merged settings are not valid JSON; nothing was changed")
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", path)
	var left []string // folders of binaries no hook runs any more
	for _, ch := range changes {
		fmt.Fprintln(&b, ch)
		if prog, _ := splitProgram(ch.Command); ch.Kind == Move && filepath.IsAbs(prog) && !slices.Contains(left, filepath.Dir(prog)) {
			left = append(left, filepath.Dir(prog))
		}
	}
	for _, d := range left {
		fmt.Fprintf(&b, "note: no hook runs the binaries in %s any more; ./install.sh --uninstall --prefix %s removes them\n", d, filepath.Dir(d))
	}
	for _, key := range plugins {
		fmt.Fprintf(&b, "note: flower's plugin (%s) is on in this file too: Claude Code runs every hook of both, so each runs twice. "+
			"./install.sh --disable-plugin turns the plugin off (or: claude plugin disable %s)\n", key, key)
	}
	switch {
	case len(changes) == 0 && o.uninstall:
		fmt.Fprintf(&b, "no flower hooks for %s, nothing to remove\n", dir)
	case len(changes) == 0:
		fmt.Fprintf(&b, "already wired (layers %s), nothing to change\n", strings.Join(layers, ","))
	case o.dryRun:
		fmt.Fprintln(&b, "dry run: nothing written")
	case info != nil && !wired(doc):
		fmt.Fprintf(&b, "wrote %s (your file as it was before flower is in %s)\n", path, path+BackupSuffix)
	default:
		fmt.Fprintf(&b, "wrote %s\n", path)
	}
	if !o.dryRun && len(changes) > 0 {
		if err := write(o.settings, path, doc, out, info); err != nil {
			return "", errors.New(err.Error() + wayOut)
		}
	}
	if o.dryRun && !o.uninstall {
		if err := writable(o.settings, path, info); err != nil {
			block, _ := Example(dir, layers)
			fmt.Fprintf(&b, "note: %v; add these hooks where it is generated:\n%s", err, block)
		}
	}
	return b.String(), nil
}

func cmpLayers(layers, or []string) []string {
	if layers == nil {
		return or
	}
	return layers
}

// installed checks that dir holds the binaries of layers and the capture script.
func installed(dir string, layers []string) error {
	isFile := func(path string) bool {
		fi, err := os.Stat(path)
		return err == nil && fi.Mode().IsRegular()
	}
	for _, b := range Binaries(layers) {
		if !isFile(filepath.Join(dir, b)) {
			return fmt.Errorf("%s is not in %s (needed by --layers %s); build and install it first, or leave its layer out", b, dir, strings.Join(layers, ","))
		}
	}
	if script := capture.ScriptPath(dir); slices.Contains(layers, LayerCapture) && !isFile(script) {
		return fmt.Errorf("%s is not there (needed by --layers %s); install.sh puts it there, or write it with --print-capture-script", script, strings.Join(layers, ","))
	}
	return nil
}

// Example is {"hooks": {…}} for layers, into dir (by name for "").
func Example(dir string, layers []string) ([]byte, error) {
	out, _, err := Install([]byte("{}\n"), dir, layers)
	return out, err
}

// PluginHooks is the plugin's hooks/hooks.json: the default layers, by name on PATH.
func PluginHooks() ([]byte, error) {
	doc := "{\n  \"description\": \"flower: delegate-guard (layer 1), index-guard (layer 2), spill-guard (layer 3). " +
		"The binaries must be on PATH (go install or install.sh); a missing one disables its hook.\"\n}\n"
	out, _, err := Install([]byte(doc), "", DefaultLayers)
	return out, err
}

// read returns the file to write for --settings (a link followed: dotfile
// managers link settings.json), its bytes ({} when missing) and its info.
func read(settings string) (path string, doc []byte, info os.FileInfo, err error) {
	if path, err = filepath.Abs(settings); err != nil {
		return "", nil, nil, err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", nil, nil, err
	}
	if doc, err = config.ReadFile(path, maxSettings, 0); err == nil && doc == nil {
		return path, []byte("{}\n"), nil, nil
	}
	if err == nil {
		info, err = os.Stat(path)
	}
	if err == nil {
		err = Validate(doc)
	}
	if err != nil {
		err = fmt.Errorf("%s: %v", path, err)
	}
	return path, doc, info, err
}

// maxSettings bounds a settings file, as flower-config --doctor reads it.
const maxSettings = 4 << 20

// write replaces path with out atomically, first keeping prev as the backup
// when nothing of flower's is wired in it (an earlier install's would wire
// binaries that may be gone). A new file is 0600: settings may hold secrets.
func write(settings, path string, prev, out []byte, info os.FileInfo) error {
	err := writable(settings, path, info)
	switch {
	case err != nil:
		return err
	case info == nil:
		if err = os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
			err = atomicfile.Write(path, out, 0o600)
		}
	case !wired(prev):
		if err = atomicfile.Write(path+BackupSuffix, prev, info.Mode().Perm()); err == nil {
			err = atomicfile.Write(path, out, info.Mode().Perm())
		}
	default:
		err = atomicfile.Write(path, out, info.Mode().Perm())
	}
	return cannotWrite(settings, path, err)
}

// wired reports whether doc runs any flower binary or names the capture script.
func wired(doc []byte) bool { return len(scan(doc, "")) > 0 || captureWired(doc) }

// writable checks, changing nothing, that write can make a file beside path.
// A file its owner may not write is one not to change (home-manager's store).
func writable(settings, path string, info os.FileInfo) error {
	if info != nil && info.Mode().Perm()&0o200 == 0 {
		return cannotWrite(settings, path, fmt.Errorf("it is read-only (mode %04o)", info.Mode().Perm()))
	}
	// The rename would replace a link to a missing file with a plain file.
	if dest, err := os.Readlink(path); info == nil && err == nil {
		return cannotWrite(settings, path, fmt.Errorf("it is a symlink to %s, which does not exist (create that file with {} in it)", dest))
	}
	dir := filepath.Dir(path)
	for _, err := os.Stat(dir); err != nil && filepath.Dir(dir) != dir; _, err = os.Stat(dir) {
		dir = filepath.Dir(dir)
	}
	f, err := os.CreateTemp(dir, ".flower-check-*")
	if err != nil {
		return cannotWrite(settings, path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// cannotWrite says why the settings file cannot be changed; nil for nil.
func cannotWrite(settings, path string, err error) error {
	if err == nil {
		return nil
	}
	what := settings
	if abs, aerr := filepath.Abs(settings); aerr == nil && abs != path {
		what = fmt.Sprintf("%s (a link to %s)", settings, path)
	}
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
