package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/extra"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// kind is the JSON type of a key's value.
type kind uint8

const (
	boolKind    kind = iota
	intKind          // a whole number from the key's min up
	pathKind         // a string naming a folder or file
	listKind         // an array of names
	entriesKind      // an array of glance-table entries
)

// rule is what an untrusted project file (someone else's text) may do with a key.
type rule uint8

const (
	free        rule = iota // a size or a switch no value of which widens anything
	onlyOff                 // turned off, never on where the user turned it off
	addOnly                 // names added to the user's, never taken away
	trustedOnly             // why says what it would widen
	userOnly                // only from the user file
)

// Key is one key of the configuration; each flag of a hook has one, named
// after it under the command's name, that fills it when not given.
type Key struct {
	Name    string   // the dotted path: "spill-guard.threshold"
	Default string   // as flower-config prints it; the flag's default
	Flags   []string // the flags the key fills, "command --flag"
	kind    kind
	min     int  // for intKind, and the fewest names of a listKind
	invert  bool // the flag is the key's negation (--no-glance)
	rule    rule
	why     string // for trustedOnly
}

const (
	where = "where tool output is written is the user's choice"
	log   = "the decision log is the user's"
)

// keys is every key, in the order flower-config prints them.
var keys = []*Key{
	{Name: "delegate-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "delegate-guard.tools", kind: listKind, Default: "Bash,Write,Edit,NotebookEdit", min: 1, Flags: []string{"delegate-guard --tools"}, rule: addOnly},
	{Name: "delegate-guard.glance", kind: boolKind, Default: "true", Flags: []string{"delegate-guard --no-glance"}, invert: true, rule: onlyOff},
	{Name: "delegate-guard.main-thread", kind: entriesKind, rule: trustedOnly, why: "lets the main thread run more"},
	{Name: "glances", kind: entriesKind, rule: trustedOnly, why: "widens the glance table"},
	{Name: "index-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "index-guard.max-entries", kind: intKind, Default: "40", Flags: []string{"index-guard --max-entries"}},
	{Name: "spill-guard.enabled", kind: boolKind, Default: "true", rule: onlyOff},
	{Name: "spill-guard.threshold", kind: intKind, Default: "4000", min: 1, Flags: []string{"spill-guard --threshold"}},
	{Name: "spill-guard.head", kind: intKind, Default: "400", Flags: []string{"spill-guard --head"}},
	{Name: "spill-guard.main-only", kind: boolKind, Default: "false", Flags: []string{"spill-guard --main-only"}},
	{Name: "workbench", kind: pathKind, Flags: []string{"delegate-guard --workbench", "index-guard --workbench", "spill-guard --workbench"}, rule: trustedOnly, why: where},
	{Name: "prune-session.keep-recent", kind: intKind, Default: "6", Flags: []string{"prune-session --keep-recent"}},
	{Name: "prune-session.keep-denials", kind: intKind, Default: "1", Flags: []string{"prune-session --keep-denials"}},
	{Name: "prune-session.trim", kind: boolKind, Default: "false", Flags: []string{"prune-session --trim"}, rule: onlyOff},
	{Name: "prune-session.trim-min", kind: intKind, Default: "2000", Flags: []string{"prune-session --trim-min"}},
	{Name: "prune-session.trim-keep", kind: intKind, Default: "20", Flags: []string{"prune-session --trim-keep"}},
	{Name: "prune-session.spill-dir", kind: pathKind, Flags: []string{"prune-session --spill-dir"}, rule: trustedOnly, why: where},
	{Name: "prune-session.sync", kind: boolKind, Default: "false", Flags: []string{"prune-session --sync"}},
	{Name: "log.enabled", kind: boolKind, Default: "false", rule: trustedOnly, why: log},
	{Name: "log.file", kind: pathKind, rule: trustedOnly, why: log},
	// About 16,000 decisions of 250 bytes: a long day's work.
	{Name: "log.max-bytes", kind: intKind, Default: "4194304", min: 4096, rule: trustedOnly, why: log},
	{Name: "trusted-projects", kind: listKind, rule: userOnly},
}

// sections are the objects a file may hold; every other key is a leaf.
var sections = []string{"delegate-guard", "index-guard", "spill-guard", "prune-session", "log"}

// Keys returns every key, in the order flower-config prints them.
func Keys() []*Key { return keys }

// Limits on a file a repository can commit at any size and the hooks read on
// every call; a real one is a few hundred bytes, 4 levels deep.
const (
	MaxFileBytes = 64 << 10
	maxDepth     = 8
	maxEntries   = 200  // glance entries of one key
	maxItems     = 200  // names of a list
	maxPath      = 4096 // PATH_MAX
	maxInt       = 1 << 30
)

// ProjectFile is the project file, beside Claude Code's .claude/settings.json.
const ProjectFile = ".claude/flower.json"

// LocalFile is the user's own file for one project, once vouched for (Vouch);
// else a project file, as a repository may ship one.
const LocalFile = ".claude/flower.local.json"

// FileError is why a configuration file cannot be used; Line 0 is the whole file.
type FileError struct {
	Path string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// layer is what one file sets, by key name.
type layer map[string]*Value

type parser struct {
	path, src, from string
	out             layer
}

// parse reads data, the file at path, into the settings it holds, from the file named from.
func parse(data []byte, path, from string) (layer, error) {
	p := &parser{path: path, src: string(data), from: from, out: layer{}}
	if len(data) > MaxFileBytes {
		return nil, p.fail(0, fmt.Sprintf("%d bytes, past the %d a configuration file may have", len(data), MaxFileBytes))
	}
	var e *jsoncheck.Error
	switch err := jsoncheck.Check(p.src, maxDepth); {
	case errors.As(err, &e) && e.Repeated:
		if i := strings.LastIndexByte(e.Path, '.'); i > 0 && strings.Trim(e.Path[i+1:], "0123456789") == "" {
			return nil, p.fail(e.Line(p.src), fmt.Sprintf("%s entry: %q is given twice", e.Path[:i], e.Key))
		}
		return nil, p.fail(e.Line(p.src), fmt.Sprintf("%q is given twice (a reader could take either)", strings.TrimPrefix(e.Path+"."+e.Key, ".")))
	case e != nil && e.Msg == "not valid UTF-8":
		return nil, p.fail(0, e.Msg)
	case e != nil:
		return nil, p.fail(e.Line(p.src), "not valid JSON: "+e.Msg)
	}
	root := gjson.Parse(p.src)
	if !root.IsObject() {
		return nil, p.fail(p.line(len(p.src)-len(strings.TrimLeft(p.src, " \t\r\n"))), "not a JSON object")
	}
	if err := p.members("", root); err != nil {
		return nil, err // ignored whole: not the keys before the bad one
	}
	return p.out, nil
}

func (p *parser) fail(line int, msg string) error {
	return &FileError{Path: p.path, Line: line, Msg: msg}
}

// line is the line of the byte at offset.
func (p *parser) line(offset int) int {
	return 1 + strings.Count(p.src[:min(offset, len(p.src))], "\n")
}

// members reads the members of obj, the top level ("") or a section.
func (p *parser) members(section string, obj gjson.Result) (err error) {
	obj.ForEach(func(k, v gjson.Result) bool {
		name, line := strings.TrimPrefix(section+"."+k.Str, "."), p.line(v.Index)
		i := slices.IndexFunc(keys, func(k *Key) bool { return k.Name == name })
		switch {
		case strings.Contains(k.Str, "."):
			err = p.fail(line, fmt.Sprintf("unknown key %q (write a section as an object: {\"spill-guard\": {\"threshold\": 8000}})", name))
		case name == "$schema":
		case section == "" && slices.Contains(sections, name) && !v.IsObject():
			err = p.fail(line, fmt.Sprintf("%q is %s, want an object", name, jsonkind.Of(v)))
		case section == "" && slices.Contains(sections, name):
			err = p.members(name, v)
		case i < 0:
			err = p.fail(line, fmt.Sprintf("unknown key %q%s", name, suggest(name)))
		default:
			p.out[name], err = p.value(keys[i], v, line)
		}
		return err == nil
	})
	return err
}

// value reads one key's value.
func (p *parser) value(k *Key, v gjson.Result, line int) (*Value, error) {
	s := &Value{Key: k, From: p.from, Line: line}
	fail := func(format string, a ...any) (*Value, error) {
		return nil, p.fail(line, k.Name+" "+fmt.Sprintf(format, a...))
	}
	switch k.kind {
	case boolKind:
		if !v.IsBool() {
			return fail("is %s, want true or false", jsonkind.Of(v))
		}
		s.Bool = v.Bool()
	case intKind:
		if v.Type != gjson.Number || strings.ContainsAny(v.Raw, ".eE") {
			return fail("is %s, want a whole number", jsonkind.Of(v))
		}
		n, err := strconv.Atoi(v.Raw)
		if err != nil || n < k.min || n > maxInt {
			return fail("is %s, want %d to %d", v.Raw, k.min, maxInt)
		}
		s.Int = n
	case pathKind:
		switch {
		case v.Type != gjson.String:
			return fail("is %s, want a path (a string)", jsonkind.Of(v))
		case badPath(v.Str) != "":
			return fail("%s", badPath(v.Str))
		case k.Name == "log.file" && !absolute(v.Str):
			return fail("is not absolute (start it with / or ~/)")
		}
		s.Path = v.Str
	case listKind:
		if !v.IsArray() {
			return fail("is %s, want an array of strings", jsonkind.Of(v))
		}
		trust := k.Name == "trusted-projects"
		for _, item := range v.Array() {
			switch name := item.Str; {
			case item.Type != gjson.String:
				return fail("holds %s, want strings", jsonkind.Of(item))
			case len(s.List) == maxItems:
				return fail("holds more than %d names", maxItems)
			case trust && badPath(name) != "":
				return fail("%q %s", name, badPath(name))
			case trust && !absolute(name):
				return fail("%q is not absolute (start it with / or ~/)", name)
			case !trust && (name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != ""):
				return fail("%q is not a tool name (letters, digits, _ and -)", name)
			case !slices.Contains(s.List, name):
				s.List = append(s.List, name)
			}
		}
		if len(s.List) < k.min {
			return fail("names no tool (leave the key out for the default)")
		}
	case entriesKind:
		if !v.IsArray() {
			return fail("is %s, want an array of entries ({\"command\": …})", jsonkind.Of(v))
		}
		for _, item := range v.Array() {
			if len(s.Extras) == maxEntries {
				return nil, p.fail(p.line(item.Index), fmt.Sprintf("%s holds more than %d entries", k.Name, maxEntries))
			}
			e, err := p.entry(k, item)
			if err != nil {
				return nil, err
			}
			s.Extras = append(s.Extras, e)
		}
	}
	return s, nil
}

// entry reads the shape of one glance-table entry; ephemeral.NewGlances judges the rest.
func (p *parser) entry(k *Key, obj gjson.Result) (e extra.Entry, err error) {
	e = extra.Entry{Operands: -1, MainThread: k.Name == "delegate-guard.main-thread", Source: p.from, File: p.path, Line: p.line(obj.Index)}
	if !obj.IsObject() {
		return e, p.fail(e.Line, fmt.Sprintf("%s holds %s, want objects ({\"command\": …})", k.Name, jsonkind.Of(obj)))
	}
	seen := false
	obj.ForEach(func(key, v gjson.Result) bool {
		fail := func(format string, a ...any) bool {
			err = p.fail(p.line(v.Index), k.Name+" entry: "+fmt.Sprintf(format, a...))
			return false
		}
		switch key.Str {
		case "command":
			if v.Type != gjson.String {
				return fail("command is %s, want a string", jsonkind.Of(v))
			}
			e.Command, seen = v.Str, true
		case "options":
			if !v.IsArray() {
				return fail("options is %s, want an array of strings", jsonkind.Of(v))
			}
			for _, o := range v.Array() {
				if o.Type != gjson.String {
					return fail("options holds %s, want strings", jsonkind.Of(o))
				}
				e.Options = append(e.Options, o.Str)
			}
		case "operands":
			if n := int(v.Num); v.Type != gjson.Number || float64(n) != v.Num || n < 0 || n > 1000 {
				return fail("operands is %s, want a whole number from 0 to 1000 (leave it out for any number)", v.Raw)
			}
			e.Operands = int(v.Num)
		default:
			return fail("unknown key %q (command, options, operands)", key.Str)
		}
		return true
	})
	if err == nil && !seen {
		err = p.fail(e.Line, k.Name+" entry has no command")
	}
	return e, err
}

// absolute reports whether a path of a file is absolute as written there.
func absolute(p string) bool { return strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") }

// badPath says why s cannot be a path, or "".
func badPath(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > maxPath:
		return fmt.Sprintf("is longer than %d bytes", maxPath)
	case strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "holds a control character"
	case strings.HasPrefix(s, "~") && s != "~" && !strings.HasPrefix(s, "~/"):
		return "starts with ~user: write the folder out"
	}
	return ""
}

// suggest names a known key with the same last part as name.
func suggest(name string) string {
	leaf := name[strings.LastIndexByte(name, '.')+1:]
	for _, k := range keys {
		if k.Name == leaf || strings.HasSuffix(k.Name, "."+leaf) {
			return fmt.Sprintf(" (did you mean %q?)", k.Name)
		}
	}
	return ""
}

// UserFile is $XDG_CONFIG_HOME/flower/config.json, else ~/.config/flower/config.json, or "".
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // the XDG spec: a relative value is ignored
		if dir = homeDir(); dir == "" {
			return ""
		}
		dir = filepath.Join(dir, ".config")
	}
	return filepath.Join(dir, "flower", "config.json")
}

func homeDir() string {
	home, _ := os.UserHomeDir()
	return home
}

// ReadFile reads the regular file at path, of at most limit bytes, without
// blocking on a FIFO; a missing file is (nil, nil). flag adds O_NOFOLLOW for
// a project's file (the user's own may be a dotfile manager's link).
func ReadFile(path string, limit int64, flag int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return nil, nil // no file, or a file where a folder on the way should be
	case errors.Is(err, syscall.ELOOP):
		return nil, errors.New("a symlink: flower does not follow a symlink in a project")
	case err != nil:
		return nil, err.(*fs.PathError).Err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, errors.New("a folder, not a regular file")
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file")
	case fi.Size() > limit:
		return nil, fmt.Errorf("%d bytes, past the %d bytes flower reads", fi.Size(), limit)
	}
	return io.ReadAll(io.LimitReader(f, limit+1)) // parse sees a file that grew
}
