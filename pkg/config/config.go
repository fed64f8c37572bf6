// Package config reads flower's configuration: the user file, and over it a
// project's files within the trust rule, then a command line's flags (the
// README's Configure section).
package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/flowerhooks/flower/pkg/decisionlog"
	"github.com/flowerhooks/flower/pkg/extra"
	"github.com/flowerhooks/flower/pkg/hook"
)

// Config is the effective configuration for one project folder.
type Config struct {
	Dir                  string // the project folder; "" when none is known
	User, Project, Local File
	Ignored              []Ignored // the settings the trust rule left out
	values               map[string]*Value
}

// File is one configuration file as Load found it.
type File struct {
	Path    string // "" when there is no such file to look for
	Found   bool
	Err     error // why it cannot be used: it is then ignored whole
	Trusted bool  // in trusted-projects, or a local file vouched for: taken like the user file
	data    []byte
	set     layer
}

// Value is a key's effective value and where it came from.
type Value struct {
	Key    *Key
	From   string // "default", "user file", "project file", "local file", or "user file, project file" for a list both add to
	Line   int    // in the last file that set it
	Bool   bool
	Int    int
	Path   string // absolute, symlinks not resolved
	List   []string
	Extras []extra.Entry
}

// Ignored is a setting of the project or local file the trust rule left out.
type Ignored struct {
	Key, From string
	Line      int
	Why       string
}

const (
	fromDefault = "default"
	fromUser    = "user file"
	fromProject = "project file"
	fromLocal   = "local file"
	untrusted   = "; this project is not trusted (add its folder to trusted-projects in the user file)"
	notVouched  = "; this local file is not vouched for (flower-config --trust-local, after reading it)"
)

// Load reads the user file and the files of the project folder dir ("" for
// none) and merges them; it never fails.
func Load(dir string) *Config {
	c := &Config{Dir: dir, User: load(UserFile(), fromUser)}
	if dir != "" {
		c.Project = load(filepath.Join(dir, ProjectFile), fromProject)
		c.Local = load(filepath.Join(dir, LocalFile), fromLocal)
		c.Project.Trusted = c.Project.set != nil && trusts(c.User.set["trusted-projects"], dir)
		c.Local.Trusted = c.Local.set != nil && (c.Project.Trusted || vouched(c.Local.Path, c.Local.data))
	}
	files := []*File{&c.User, &c.Project, &c.Local}
	if c.merge(files...) == nil {
		return c
	}
	// The values clash: the file at fault goes, the user file first (its trusted-projects too).
	for i, f := range files {
		if err := c.merge(files[:i+1]...); err != nil && f.set != nil {
			f.Err, f.set = &FileError{Path: f.Path, Msg: err.Error()}, nil
			c.Project.Trusted = c.Project.Trusted && i > 0
		}
	}
	c.merge(files...)
	return c
}

// load reads and parses the file at path. A project's file is the
// repository's: neither it nor .claude may be a symlink (to /dev/zero, or a
// file of the user's).
func load(path, from string) File {
	f := File{Path: path}
	if path == "" {
		return f
	}
	var data []byte
	var err error
	if claude := filepath.Dir(path); from != fromProject && from != fromLocal {
		data, err = ReadFile(path, MaxFileBytes, 0)
	} else if fi, lerr := os.Lstat(claude); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		err = fmt.Errorf("%s is a symlink: flower does not follow a symlink in a project", claude)
	} else {
		data, err = ReadFile(path, MaxFileBytes, syscall.O_NOFOLLOW)
	}
	f.Found = err != nil || data != nil
	if err != nil {
		f.Err = &FileError{Path: path, Msg: "cannot be read: " + err.Error()}
	} else if f.Found {
		f.data = data
		f.set, f.Err = parse(data, path, from)
	}
	return f
}

// Check reads the file at path alone, as a hook would; it returns its glance
// entries for ephemeral.NewGlances to judge.
func Check(path string) ([]extra.Entry, error) {
	c := &Config{User: load(path, "file")}
	switch err := c.merge(&c.User); {
	case c.User.Err != nil:
		return nil, c.User.Err
	case !c.User.Found:
		return nil, &FileError{Path: path, Msg: "no such file"}
	case err != nil:
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	return c.Extras(), nil
}

// Vouch records the local file of the project folder dir as the user's own
// while its content stays as it is now, and returns its path.
func Vouch(dir string) (string, error) {
	f := load(filepath.Join(dir, LocalFile), fromLocal)
	record := vouchRecord(f.Path)
	switch {
	case f.Err != nil:
		return f.Path, f.Err
	case !f.Found:
		return f.Path, fmt.Errorf("%s: no such file", f.Path)
	case record == "":
		return f.Path, errors.New("no state folder: neither $XDG_STATE_HOME nor $HOME is set")
	}
	if err := os.MkdirAll(filepath.Dir(record), 0o700); err != nil {
		return f.Path, err
	}
	return f.Path, os.WriteFile(record, f.data, 0o600)
}

// vouched reports whether the user vouched for data as the local file at path.
func vouched(path string, data []byte) bool {
	b, err := ReadFile(vouchRecord(path), MaxFileBytes, 0)
	return err == nil && b != nil && bytes.Equal(b, data)
}

// vouchRecord keeps the vouched-for content outside the project, where no repository writes.
func vouchRecord(path string) string {
	if dir := hook.StateDir(); dir != "" {
		return filepath.Join(dir, "local-files", hash(path))
	}
	return ""
}

func hash(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return strconv.FormatUint(h.Sum64(), 36)
}

// trusts reports whether trusted-projects names dir, as written or with symlinks resolved.
func trusts(s *Value, dir string) bool {
	if s == nil {
		return false
	}
	resolved, err := filepath.EvalSymlinks(dir)
	for _, p := range s.List {
		p = filepath.Clean(expandHome(p))
		if r, rerr := filepath.EvalSymlinks(p); p == dir || err == nil && rerr == nil && r == resolved {
			return true
		}
	}
	return false
}

func expandHome(p string) string {
	if home := homeDir(); home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}

// merge computes the values from the defaults and files; an error when they
// clash (a head not below the threshold).
func (c *Config) merge(files ...*File) error {
	c.values, c.Ignored = map[string]*Value{}, nil
	for _, k := range keys {
		v := &Value{Key: k, From: fromDefault, Bool: k.Default == "true"}
		v.Int, _ = strconv.Atoi(k.Default)
		if k.kind == listKind && k.Default != "" {
			v.List = strings.Split(k.Default, ",")
		}
		if dir := hook.StateDir(); k.Name == "log.file" && dir != "" {
			v.Path = filepath.Join(dir, "decisions.jsonl")
		}
		for _, f := range files {
			if s := f.set[k.Name]; s != nil && f == &c.User {
				v.set(s, c.Dir, false)
			} else if s != nil {
				c.fromProject(v, s, f.Trusted)
			}
		}
		c.values[k.Name] = v
	}
	slices.SortStableFunc(c.Ignored, func(a, b Ignored) int { return a.Line - b.Line })
	head, threshold := c.values["spill-guard.head"], c.values["spill-guard.threshold"]
	if head.From == fromDefault && head.Int >= threshold.Int {
		// A threshold set alone below the default head takes the head to its tenth.
		head.Int, head.From = threshold.Int/10, "default (a tenth of spill-guard.threshold)"
	}
	if head.Int >= threshold.Int {
		return fmt.Errorf("spill-guard.head %d is not below spill-guard.threshold %d (%s, %s)", head.Int, threshold.Int, head.From, threshold.From)
	}
	return nil
}

// set takes s as v's value: a relative path is from the project folder dir,
// entries add up, and a list both files add to (add) names both.
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

// fromProject applies s, of the project or local file, to v under the trust rule.
func (c *Config) fromProject(v, s *Value, trusted bool) {
	k, hint := v.Key, untrusted
	if s.From == fromLocal {
		hint = notVouched
	}
	ignore := func(why string) {
		c.Ignored = append(c.Ignored, Ignored{Key: k.Name, From: s.From, Line: s.Line, Why: why})
	}
	switch {
	case k.rule == userOnly:
		ignore("only the user file sets it")
	case trusted, k.rule == free, k.rule == onlyOff && (!s.Bool || v.Bool):
		v.set(s, c.Dir, false)
	case k.rule == onlyOff:
		ignore("a project file may turn it off, not on where the " + v.From + " turned it off" + hint)
	case k.rule == addOnly:
		added := slices.DeleteFunc(slices.Clone(s.List), func(n string) bool { return slices.Contains(v.List, n) })
		dropped := slices.DeleteFunc(slices.Clone(v.List), func(n string) bool { return slices.Contains(s.List, n) })
		if len(added) > 0 {
			v.set(&Value{From: s.From, Line: s.Line, List: append(slices.Clone(v.List), added...)}, c.Dir, true)
		}
		if len(dropped) > 0 {
			ignore("leaves out " + strings.Join(dropped, ", ") + ": a project file may add to the list, not take from it" + hint)
		}
	default:
		ignore(k.why + hint)
	}
}

// Value returns the effective value of the key called name; nil for no such key.
func (c *Config) Value(name string) *Value { return c.values[name] }

// Enabled reports whether the layer of command is on (true without a key).
func (c *Config) Enabled(command string) bool {
	v := c.values[command+".enabled"]
	return v == nil || v.Bool
}

// Extras are the glance-table entries: the glances, then the hands-on commands.
func (c *Config) Extras() []extra.Entry {
	return append(slices.Clone(c.values["glances"].Extras), c.values["delegate-guard.main-thread"].Extras...)
}

// Problems are the errors of the files that cannot be used.
func (c *Config) Problems() (errs []error) {
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

// Fill sets each flag of command that its command line did not give and a
// file sets; FLOWER_WORKBENCH wins over the files. A path in the project
// folder is the repository's: not given when it leads through a symlink or a
// file there (a committed link leads anywhere), and the error says so.
func (c *Config) Fill(command string, fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for _, k := range keys {
		v := c.values[k.Name]
		for _, spec := range k.Flags {
			cmd, name, _ := strings.Cut(spec, " --")
			if v.From == fromDefault || cmd != command || given[name] || fs.Lookup(name) == nil ||
				k.Name == "workbench" && os.Getenv("FLOWER_WORKBENCH") != "" {
				continue
			}
			if rel, err := filepath.Rel(c.Dir, v.Path); k.kind == pathKind && c.Dir != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				if err := inside(c.Dir, rel); err != nil {
					errs = append(errs, keyError{fmt.Errorf("%s from the %s: %s leads through %v; the default stands in", k.Name, v.From, v.Path, err)})
					continue
				}
			}
			value := v.String()
			if k.kind == boolKind {
				value = strconv.FormatBool(v.Bool != k.invert)
			}
			if err := fs.Set(name, value); err != nil {
				return fmt.Errorf("%s from the %s: %v", k.Name, v.From, err)
			}
		}
	}
	return errors.Join(errs...)
}

// keyError is a key Fill could not use; its message says what stands in.
type keyError struct{ error }

// inside names the symlink or file on the way from dir to dir/rel, if any.
func inside(dir, rel string) error {
	for _, part := range strings.Split(rel, "/") {
		if part == "." {
			break
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // made as a folder when it is first used
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("the symlink %s", dir)
		case !fi.IsDir():
			return fmt.Errorf("%s, which is not a folder", dir)
		}
	}
	return nil
}

// String is v as flower-config prints it; "" for entries.
func (v *Value) String() string {
	switch v.Key.kind {
	case boolKind:
		return strconv.FormatBool(v.Bool)
	case intKind:
		return strconv.Itoa(v.Int)
	case listKind:
		return strings.Join(v.List, ",")
	}
	return v.Path
}

// ForHook is the opening of a hook's Main once its flags are defined: args,
// the payload, the configuration (ForCommand). When done, it returns code.
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

// notice tells the person, once a session, what of the configuration the
// hooks cannot use: "" when nothing is wrong or the session was told this
// line (an empty file in dir/notices named after both).
func (c *Config) notice(session, dir string) string {
	var says []string
	for _, err := range c.Problems() {
		says = append(says, err.Error()+": the hooks run on the defaults in its place")
	}
	if n := len(c.Ignored); n > 0 {
		var keys []string
		for _, ig := range c.Ignored {
			keys = append(keys, ig.Key)
		}
		says = append(says, fmt.Sprintf("%s sets %d setting(s) flower leaves out (%s)", filepath.Dir(c.Project.Path), n, strings.Join(slices.Compact(keys), ", ")))
	}
	if len(says) == 0 || session == "" || dir == "" {
		return ""
	}
	line := "flower: " + strings.Join(says, "; ") + "; flower-config --doctor says more"
	dir = filepath.Join(dir, "notices")
	if os.MkdirAll(dir, 0o700) != nil {
		return line
	}
	f, err := os.OpenFile(filepath.Join(dir, hash(session+"\x00"+line)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "" // told already (or the note cannot be made: better silent than told on every call)
	}
	f.Close()
	// Notes older than a week go when a session is told, which is seldom.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > 7*24*time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return line
}

// ForCommand loads the configuration of dir for cli, fills its flags, and
// warns of what it could not use: a bad file never stops a command.
func ForCommand(cli *hook.CLI, dir string) *Config {
	c := Load(dir)
	Warn(cli, append(c.Problems(), c.Fill(cli.Name, cli.Flags))...)
	return c
}

// Warn says in one stderr line what a command could not use: a file, a key
// Fill could not use, an entry ephemeral.NewGlances left out (a line each).
func Warn(cli *hook.CLI, errs ...error) {
	var msgs []string
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.As(err, new(*FileError)):
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
