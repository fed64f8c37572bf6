// Package config reads flower's configuration: the same keys in a user
// file and a project file, the project's over the user's within the trust
// rule, and a command line's flags over both. README.md's Configure
// section says what each key does, what a project file may set, and how a
// bad file is treated.
package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/extra"
	"github.com/flowerhooks/flower/pkg/hook"
)

// Config is the effective configuration for one project folder: the
// defaults, then the user file, then the project file within the trust
// rule, then the local file (as the user's when vouched for, else as a
// project file).
type Config struct {
	Dir     string // the project folder; "" when none is known
	User    File
	Project File
	Local   File
	// Ignored are the project file's settings the trust rule left out.
	Ignored []Ignored
	values  map[string]*Value
}

// File is one configuration file as Load found it.
type File struct {
	Path  string // "" when there is no such file to look for
	Found bool   // it exists
	// Err says why it cannot be used: it is then ignored whole, as if it
	// were not there, and the other file still counts.
	Err error
	// Trusted is set for a project file whose folder the user file names in
	// trusted-projects, and a local file vouched for: it is then taken like
	// the user file.
	Trusted bool
	data    []byte // as read
}

// Value is a key's effective value and where it came from.
type Value struct {
	Key *Key
	// From is "default", "user file", "project file", or "user file,
	// project file" for a list both add to.
	From   string
	Line   int // in the last file that set it
	Bool   bool
	Int    int
	Path   string // absolute, symlinks not resolved
	List   []string
	Extras []extra.Entry
}

// Ignored is a setting of the project or local file the trust rule left
// out.
type Ignored struct {
	Key  string
	From string // "project file", "local file"
	Line int
	Why  string
}

// Sources, as Value.From says them.
const (
	fromDefault = "default"
	fromUser    = "user file"
	fromProject = "project file"
	fromLocal   = "local file"
)

// untrusted and notVouched end the reason of an ignored setting of the
// project file and of the local file.
const (
	untrusted  = "; this project is not trusted (add its folder to trusted-projects in the user file)"
	notVouched = "; this local file is not vouched for (flower-config --trust-local, after reading it)"
)

// Load reads the user file, and the project file and the local file of the
// project folder dir ("" for none), and merges them. It never fails: a file
// that cannot be used is ignored whole and says why in its File.Err.
func Load(dir string) *Config {
	c := &Config{Dir: dir, User: File{Path: UserFile()}}
	user := c.User.load(func(path string) ([]byte, error) { return readFile(path, 0) }, fromUser)
	var project, local layer
	if dir != "" {
		c.Project.Path, c.Local.Path = filepath.Join(dir, ProjectFile), filepath.Join(dir, LocalFile)
		project = c.Project.load(func(string) ([]byte, error) { return readProject(dir, ProjectFile) }, fromProject)
		local = c.Local.load(func(string) ([]byte, error) { return readProject(dir, LocalFile) }, fromLocal)
		c.Project.Trusted = project != nil && trusts(user["trusted-projects"], dir)
		c.Local.Trusted = local != nil && (c.Project.Trusted || vouched(c.Local.Path, c.Local.data))
	}
	if c.merge(user, project, local) == nil {
		return c
	}
	// The values do not hold together: the file at fault goes, the user
	// file first, then the project file, then the local file.
	if err := c.merge(user, nil, nil); user != nil && err != nil {
		c.User.Err = &FileError{Path: c.User.Path, Msg: err.Error()}
		user = nil
		c.Project.Trusted = false // ignored whole: its trusted-projects too
	}
	if err := c.merge(user, project, nil); project != nil && err != nil {
		c.Project.Err = &FileError{Path: c.Project.Path, Msg: err.Error()}
		project = nil
	}
	if err := c.merge(user, project, local); local != nil && err != nil {
		c.Local.Err = &FileError{Path: c.Local.Path, Msg: err.Error()}
		local = nil
	}
	c.merge(user, project, local)
	return c
}

// Vouch records that the user vouches for the local file of the project
// folder dir as it is now: from then on it counts as the user's own until
// its content changes. It returns the file's path.
func Vouch(dir string) (string, error) {
	f := File{Path: filepath.Join(dir, LocalFile)}
	f.load(func(string) ([]byte, error) { return readProject(dir, LocalFile) }, fromLocal)
	switch {
	case f.Err != nil:
		return f.Path, f.Err
	case !f.Found:
		return f.Path, fmt.Errorf("%s: no such file", f.Path)
	}
	record := vouchRecord(f.Path)
	if record == "" {
		return f.Path, errors.New("no state folder: neither $XDG_STATE_HOME nor $HOME is set")
	}
	if err := os.MkdirAll(filepath.Dir(record), 0o700); err != nil {
		return f.Path, err
	}
	return f.Path, os.WriteFile(record, f.data, 0o600)
}

// vouched reports whether the user vouched for data as the content of the
// local file at path.
func vouched(path string, data []byte) bool {
	b, err := readFile(vouchRecord(path), 0)
	return err == nil && b != nil && bytes.Equal(b, data)
}

// vouchRecord is where the content the user vouched for of the local file
// at path is kept: outside the project, so that no repository can write it.
func vouchRecord(path string) string {
	dir := hook.StateDir()
	if dir == "" {
		return ""
	}
	h := fnv.New64a()
	io.WriteString(h, path)
	return filepath.Join(dir, "local-files", strconv.FormatUint(h.Sum64(), 36))
}

// load reads and parses the file f names; nil when it is missing or bad.
func (f *File) load(read func(string) ([]byte, error), from string) layer {
	if f.Path == "" {
		return nil
	}
	data, err := read(f.Path)
	f.Found = err != nil || data != nil
	if err != nil {
		f.Err = &FileError{Path: f.Path, Msg: "cannot be read: " + err.Error()}
	}
	if !f.Found || f.Err != nil {
		return nil
	}
	f.data = data
	l, err := parse(data, f.Path, from)
	if err != nil {
		f.Err = err
	}
	return l
}

// Check reads the configuration file at path as a hook would and says why
// it cannot be used, or nil; it returns the file's glance entries, for the
// glance table to judge (ephemeral.NewGlances). It checks the file alone,
// over the defaults.
func Check(path string) ([]extra.Entry, error) {
	f := File{Path: path}
	l := f.load(func(path string) ([]byte, error) { return readFile(path, 0) }, "file")
	c := &Config{}
	switch err := c.merge(l, nil, nil); {
	case f.Err != nil:
		return nil, f.Err
	case !f.Found:
		return nil, &FileError{Path: path, Msg: "no such file"}
	case err != nil:
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	return c.Extras(), nil
}

// trusts reports whether the user file's trusted-projects names dir, as
// written or once symlinks are resolved on both sides.
func trusts(s *Value, dir string) bool {
	if s == nil {
		return false
	}
	resolved, err := filepath.EvalSymlinks(dir)
	for _, p := range s.List {
		p = filepath.Clean(expandHome(p))
		if p == dir {
			return true
		}
		if r, rerr := filepath.EvalSymlinks(p); err == nil && rerr == nil && r == resolved {
			return true
		}
	}
	return false
}

// expandHome expands a leading ~ or ~/ to $HOME.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home := homeDir(); home != "" {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// merge computes the values from the defaults, user, project and local
// layers; an error when the result does not hold together (a head not below
// the threshold).
func (c *Config) merge(user, project, local layer) error {
	c.values = map[string]*Value{}
	c.Ignored = nil
	for _, k := range keys {
		v := defaultValue(k)
		if s := user[k.Name]; s != nil {
			v.set(s, c.Dir, false)
		}
		if s := project[k.Name]; s != nil {
			c.fromProject(v, s, c.Project.Trusted, untrusted)
		}
		if s := local[k.Name]; s != nil {
			c.fromProject(v, s, c.Local.Trusted, notVouched)
		}
		c.values[k.Name] = v
	}
	slices.SortStableFunc(c.Ignored, func(a, b Ignored) int { return a.Line - b.Line })
	head, threshold := c.values["spill-guard.head"], c.values["spill-guard.threshold"]
	if head.From == fromDefault && head.Int >= threshold.Int {
		// A threshold set alone below the default head: the head shrinks
		// with it, to the design's tenth.
		head.Int, head.From = threshold.Int/10, "default (a tenth of spill-guard.threshold)"
	}
	if head.Int >= threshold.Int {
		return fmt.Errorf("spill-guard.head %d is not below spill-guard.threshold %d (%s, %s)", head.Int, threshold.Int, head.From, threshold.From)
	}
	return nil
}

// defaultValue is k's value when no file sets it.
func defaultValue(k *Key) *Value {
	v := &Value{Key: k, From: fromDefault, Bool: k.Default == "true"}
	v.Int, _ = strconv.Atoi(k.Default)
	if k.kind == listKind && k.Default != "" {
		v.List = strings.Split(k.Default, ",")
	}
	if dir := hook.StateDir(); k.Name == "log.file" && dir != "" {
		v.Path = filepath.Join(dir, "decisions.jsonl")
	}
	return v
}

// set takes s, from a file, as v's value: relative paths are taken from the
// project folder dir, entries add up, every other value replaces the one
// before, and a list both files add to (add) names both.
func (v *Value) set(s *Value, dir string, add bool) {
	from := s.From
	switch v.Key.kind {
	case boolKind:
		v.Bool = s.Bool
	case intKind:
		v.Int = s.Int
	case pathKind:
		v.Path = expandHome(s.Path)
		if !filepath.IsAbs(v.Path) {
			v.Path = filepath.Join(dir, v.Path)
		}
		v.Path = filepath.Clean(v.Path)
	case listKind:
		v.List = s.List
	case entriesKind:
		add = true
		v.Extras = append(slices.Clone(v.Extras), s.Extras...)
	}
	if add && v.From != from && (v.From != fromDefault || v.Key.kind == listKind) {
		from = v.From + ", " + from
	}
	v.From, v.Line = from, s.Line
}

// fromProject applies s, of the project or local file, to v under the trust
// rule; hint ends the reason of a setting left out.
func (c *Config) fromProject(v *Value, s *Value, trusted bool, hint string) {
	k := v.Key
	ignore := func(why string) {
		c.Ignored = append(c.Ignored, Ignored{Key: k.Name, From: s.From, Line: s.Line, Why: why})
	}
	switch {
	case k.rule == userOnly:
		ignore("only the user file sets it")
	case trusted, k.rule == free:
		v.set(s, c.Dir, false)
	case k.rule == onlyOff && (!s.Bool || v.Bool):
		v.set(s, c.Dir, false)
	case k.rule == onlyOff:
		ignore("a project file may turn it off, not on where the " + v.From + " turned it off" + hint)
	case k.rule == addOnly:
		var dropped, added []string
		for _, name := range v.List {
			if !slices.Contains(s.List, name) {
				dropped = append(dropped, name)
			}
		}
		for _, name := range s.List {
			if !slices.Contains(v.List, name) {
				added = append(added, name)
			}
		}
		if added != nil {
			v.set(&Value{From: s.From, Line: s.Line, List: append(slices.Clone(v.List), added...)}, c.Dir, true)
		}
		if dropped != nil {
			ignore("leaves out " + strings.Join(dropped, ", ") + ": a project file may add to the list, not take from it" + hint)
		}
	default:
		ignore(k.why + hint)
	}
}

// Value returns the effective value of the key called name; nil for no
// such key.
func (c *Config) Value(name string) *Value { return c.values[name] }

// Enabled reports whether the layer of command is on: its "enabled" key,
// true for a command without one.
func (c *Config) Enabled(command string) bool {
	v := c.values[command+".enabled"]
	return v == nil || v.Bool
}

// Extras are the entries the configuration adds to the glance table: the
// glances, then the hands-on commands. ephemeral.NewGlances makes the table
// of them, leaving out any it may not make (and saying which).
func (c *Config) Extras() []extra.Entry {
	return append(slices.Clone(c.values["glances"].Extras), c.values["delegate-guard.main-thread"].Extras...)
}

// Problems are the errors of the files that cannot be used.
func (c *Config) Problems() []error {
	var errs []error
	for _, f := range []File{c.User, c.Project, c.Local} {
		if f.Err != nil {
			errs = append(errs, f.Err)
		}
	}
	return errs
}

// Log is where the decision log goes; the zero Settings when it is off.
func (c *Config) Log() decisionlog.Settings {
	if !c.values["log.enabled"].Bool {
		return decisionlog.Settings{}
	}
	return decisionlog.Settings{File: c.values["log.file"].Path, MaxBytes: int64(c.values["log.max-bytes"].Int), Project: c.Dir}
}

// Fill sets each flag of fs, the flags of command, that the command line
// did not give and that a file sets: flags given win, then
// FLOWER_WORKBENCH for the workbench, then the files.
//
// A path of the configuration that lies in the project folder (".flower"
// in the user file means that folder of every project) is the
// repository's, and is not given to the flag when it leads through a
// symlink or a file there: the command then uses its default, which it
// refuses as a symlink itself. The error says so.
func (c *Config) Fill(command string, fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for _, k := range keys {
		v := c.values[k.Name]
		for _, spec := range k.Flags {
			cmd, name, _ := strings.Cut(spec, " --")
			switch {
			case v.From == fromDefault, cmd != command, given[name], fs.Lookup(name) == nil:
				continue
			case k.Name == "workbench" && os.Getenv("FLOWER_WORKBENCH") != "":
				continue
			}
			if k.kind == pathKind && c.Dir != "" && within(c.Dir, v.Path) {
				if err := inside(c.Dir, v.Path); err != nil {
					errs = append(errs, keyError{fmt.Errorf("%s from the %s: %v; the default stands in", k.Name, v.From, err)})
					continue
				}
			}
			if err := fs.Set(name, v.flagValue()); err != nil {
				return fmt.Errorf("%s from the %s: %v", k.Name, v.From, err)
			}
		}
	}
	return errors.Join(errs...)
}

// keyError is a key Fill could not use; its message says what stands in.
type keyError struct{ error }

// within reports whether the absolute path p lies in the folder dir, or is
// dir itself.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// inside says why p, an absolute path in the project folder dir, may not be
// taken: it leads through a symlink or a file on the way (a repository can
// commit a link that leads anywhere: the workbench's files would follow it).
func inside(dir, p string) error {
	rel, _ := filepath.Rel(dir, p)
	at := dir
	for _, part := range strings.Split(rel, "/") {
		if part == "." {
			break
		}
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // made as a folder when it is first used
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s leads through the symlink %s", p, at)
		case !fi.IsDir():
			return fmt.Errorf("%s leads through %s, which is not a folder", p, at)
		}
	}
	return nil
}

// flagValue is v as its flag takes it.
func (v *Value) flagValue() string {
	if v.Key.kind == boolKind {
		return strconv.FormatBool(v.Bool != v.Key.invert)
	}
	return v.String()
}

// String is v as flower-config prints it.
func (v *Value) String() string {
	switch v.Key.kind {
	case boolKind:
		return strconv.FormatBool(v.Bool)
	case intKind:
		return strconv.Itoa(v.Int)
	case listKind:
		return strings.Join(v.List, ",")
	case entriesKind:
		return strconv.Itoa(len(v.Extras)) + " entries"
	}
	return v.Path
}

// ForHook is the opening of a hook's Main once its flags are defined: it
// parses args, which may hold no operand, reads the payload from stdin and
// loads the configuration of its project folder (ForCommand). When done, the
// hook returns code at once: --help or --version was answered, or one
// stderr line said what was wrong.
func ForHook(c *hook.CLI, args []string) (p *hook.Payload, cfg *Config, code int, done bool) {
	if code, done := c.Parse(args); done {
		return nil, nil, code, true
	}
	if c.Flags.NArg() > 0 {
		return nil, nil, c.Fail(fmt.Errorf("unexpected argument %q: the payload comes on stdin", c.Flags.Arg(0))), true
	}
	p, err := hook.ReadPayload(c.Stdin)
	if err != nil {
		return nil, nil, c.Fail(err), true
	}
	cfg = ForCommand(c, hook.ProjectDir(p.Cwd()))
	c.Notice = cfg.notice(p.SessionID(), hook.StateDir())
	return p, cfg, hook.ExitOK, false
}

// notice is the line that tells the person, once a session, what of the
// configuration the hooks could not use (a file they ignore, settings of an
// untrusted project file left out), and where to learn more; "" when there
// is nothing to tell, or this session was told it. A session is told again
// when what is wrong changes. The sessions told are noted as empty files
// named after the session and the line in dir/notices.
func (c *Config) notice(session, dir string) string {
	var says []string
	for _, err := range c.Problems() {
		says = append(says, err.Error()+": the hooks run on the defaults in its place")
	}
	if n := len(c.Ignored); n > 0 {
		keys := make([]string, n)
		for i, ig := range c.Ignored {
			keys[i] = ig.Key
		}
		says = append(says, fmt.Sprintf("%s sets %d setting(s) flower leaves out (%s)", filepath.Dir(c.Project.Path), n, strings.Join(slices.Compact(keys), ", ")))
	}
	if len(says) == 0 || session == "" || dir == "" {
		return ""
	}
	line := "flower: " + strings.Join(says, "; ") + "; flower-config --doctor says more"
	h := fnv.New64a()
	io.WriteString(h, session+"\x00"+line)
	dir = filepath.Join(dir, "notices")
	if os.MkdirAll(dir, 0o700) != nil {
		return line
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.FormatUint(h.Sum64(), 36)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "" // told already (or the note cannot be made: better silent than told on every call)
	}
	f.Close()
	pruneNotices(dir, time.Now())
	return line
}

// noticeMaxAge is how long the note that a session was told is kept.
const noticeMaxAge = 7 * 24 * time.Hour

// pruneNotices removes the notes older than noticeMaxAge; it runs when a
// session is told, which is seldom.
func pruneNotices(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > noticeMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ForCommand loads the configuration of the project folder dir for the
// command cli runs, fills the flags its command line did not give, and
// says in one stderr line which file could not be used. A bad file never
// stops a command: it runs with the defaults in that file's place.
func ForCommand(cli *hook.CLI, dir string) *Config {
	c := Load(dir)
	problems := c.Problems()
	if err := c.Fill(cli.Name, cli.Flags); err != nil {
		problems = append(problems, err)
	}
	Warn(cli, problems...)
	return c
}

// Warn says in one stderr line what of the configuration a command could
// not use, if anything: a file it ignored (*FileError), a key Fill could not
// use, an entry the glance table left out (the error of
// ephemeral.NewGlances, a line an entry).
func Warn(cli *hook.CLI, errs ...error) {
	var msgs []string
	for _, err := range errs {
		var fe *FileError
		switch {
		case err == nil:
		case errors.As(err, &fe):
			msgs = append(msgs, err.Error()+" (the file is ignored: the defaults stand in)")
		case errors.As(err, new(keyError)):
			msgs = append(msgs, strings.ReplaceAll(err.Error(), "\n", "; "))
		default:
			for _, line := range strings.Split(err.Error(), "\n") {
				msgs = append(msgs, line+" (the entry is left out)")
			}
		}
	}
	if len(msgs) > 0 {
		fmt.Fprintf(cli.Stderr, "%s: warning: configuration: %s (see flower-config)\n", cli.Name, strings.Join(msgs, "; "))
	}
}
