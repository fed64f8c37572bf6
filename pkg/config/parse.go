package config

import (
	"errors"
	"fmt"
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

// Limits on a configuration file. A real one is a few hundred bytes, a
// dozen keys and a few glance entries; a file past them is refused whole.
const (
	// MaxFileBytes is the most a file may hold: a project file is read on
	// every hook call, and a repository can commit a file of any size.
	MaxFileBytes = 64 << 10
	// maxDepth caps how deep objects and arrays nest: a valid file goes 4
	// deep (an entry's options).
	maxDepth   = 8
	maxEntries = 200  // glance entries of one key
	maxItems   = 200  // names of a list
	maxPath    = 4096 // PATH_MAX
	maxInt     = 1 << 30
)

// ProjectFile is the project file, under the project folder: beside
// Claude Code's own .claude/settings.json, where a user looks for a
// project's settings (the trust rule, not the name, keeps it in its place).
const ProjectFile = ".claude/flower.json"

// LocalFile is the user's own file for one project, beside ProjectFile and
// ignored by git (flower-config --trust-local adds it to .git/info/exclude),
// as Claude Code keeps .claude/settings.local.json. A repository can ship a
// file by that name too: it counts as the user's only once the user has
// vouched for its content (Vouch), else as a project file.
const LocalFile = ".claude/flower.local.json"

// FileError is why a configuration file cannot be used: its path, the line
// the problem is on (0 when it is the whole file), and the reason.
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

// layer is what one file sets, by key name; each Value's From names the file.
type layer map[string]*Value

type parser struct {
	path, src, from string
	out             layer
}

// parse reads data, the configuration file at path, into the settings it
// holds; from names the file in their Value.From and in the sources of its
// glance entries.
func parse(data []byte, path, from string) (layer, error) {
	p := &parser{path: path, src: string(data), from: from, out: layer{}}
	if len(data) > MaxFileBytes {
		return nil, p.fail(0, fmt.Sprintf("%d bytes, past the %d a configuration file may have", len(data), MaxFileBytes))
	}
	var e *jsoncheck.Error
	switch err := jsoncheck.Check(p.src, maxDepth); {
	case errors.As(err, &e) && e.Repeated:
		name := strings.TrimPrefix(e.Path+"."+e.Key, ".")
		if i := strings.LastIndexByte(e.Path, '.'); i > 0 && strings.Trim(e.Path[i+1:], "0123456789") == "" {
			return nil, p.fail(e.Line(p.src), fmt.Sprintf("%s entry: %q is given twice", e.Path[:i], e.Key))
		}
		return nil, p.fail(e.Line(p.src), fmt.Sprintf("%q is given twice (a reader could take either)", name))
	case e != nil && e.Msg == "not valid UTF-8":
		return nil, p.fail(0, e.Msg)
	case e != nil:
		return nil, p.fail(e.Line(p.src), "not valid JSON: "+e.Msg)
	}
	root := gjson.Parse(p.src)
	if !root.IsObject() {
		return nil, p.fail(p.line(len(p.src)-len(strings.TrimLeft(p.src, " \t\r\n"))), "not a JSON object")
	}
	return p.out, p.members("", root)
}

func (p *parser) fail(line int, msg string) error {
	return &FileError{Path: p.path, Line: line, Msg: msg}
}

// line is the line of the byte at offset.
func (p *parser) line(offset int) int {
	return 1 + strings.Count(p.src[:min(offset, len(p.src))], "\n")
}

// members reads the members of obj, the top level ("") or a section.
func (p *parser) members(section string, obj gjson.Result) error {
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		name, line := strings.TrimPrefix(section+"."+k.Str, "."), p.line(v.Index)
		switch key := keyNamed(name); {
		case strings.Contains(k.Str, "."):
			err = p.fail(line, fmt.Sprintf("unknown key %q (write a section as an object: {\"spill-guard\": {\"threshold\": 8000}})", name))
		case name == "$schema":
		case section == "" && slices.Contains(sections, name):
			if !v.IsObject() {
				err = p.fail(line, fmt.Sprintf("%q is %s, want an object", name, jsonkind.Of(v)))
				break
			}
			err = p.members(name, v)
		case key == nil:
			err = p.fail(line, fmt.Sprintf("unknown key %q%s", name, suggest(name)))
		default:
			p.out[name], err = p.value(key, v, line)
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
		if v.Type != gjson.String {
			return fail("is %s, want a path (a string)", jsonkind.Of(v))
		}
		if why := badPath(v.Str); why != "" {
			return fail("%s", why)
		}
		if k.Name == "log.file" && !absolute(v.Str) {
			return fail("is not absolute (start it with / or ~/)")
		}
		s.Path = v.Str
	case listKind:
		if !v.IsArray() {
			return fail("is %s, want an array of strings", jsonkind.Of(v))
		}
		for _, item := range v.Array() {
			switch name := item.Str; {
			case item.Type != gjson.String:
				return fail("holds %s, want strings", jsonkind.Of(item))
			case len(s.List) == maxItems:
				return fail("holds more than %d names", maxItems)
			case k.Name == "trusted-projects" && badPath(name) != "":
				return fail("%q %s", name, badPath(name))
			case k.Name == "trusted-projects" && !absolute(name):
				return fail("%q is not absolute (start it with / or ~/)", name)
			case k.Name != "trusted-projects" && !isToolName(name):
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

// entry reads one glance-table entry: "command" and optionally "options"
// and "operands". What it may name is for the glance table to judge
// (ephemeral.NewGlances); only its shape is read here, so that reading a
// configuration does not link the shell parser.
func (p *parser) entry(k *Key, obj gjson.Result) (extra.Entry, error) {
	e := extra.Entry{Operands: -1, MainThread: k.Name == "delegate-guard.main-thread", Source: p.from, File: p.path, Line: p.line(obj.Index)}
	if !obj.IsObject() {
		return e, p.fail(e.Line, fmt.Sprintf("%s holds %s, want objects ({\"command\": …})", k.Name, jsonkind.Of(obj)))
	}
	var err error
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
			n := int(v.Num)
			if v.Type != gjson.Number || float64(n) != v.Num || n < 0 || n > 1000 {
				return fail("operands is %s, want a whole number from 0 to 1000 (leave it out for any number)", v.Raw)
			}
			e.Operands = n
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

// isToolName reports whether s has the shape of a Claude Code tool name
// (mcp__server__tool too): letters, digits, _ and -.
func isToolName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
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

// UserFile is the user file: $XDG_CONFIG_HOME/flower/config.json, else
// ~/.config/flower/config.json; "" when neither is known.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // the XDG spec: a relative value is ignored
		home := homeDir()
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "flower", "config.json")
}

// homeDir is $HOME, or "" when it is not set.
func homeDir() string {
	home, _ := os.UserHomeDir()
	return home
}

// readProject reads name (ProjectFile, LocalFile) under the project folder dir. The file
// comes with the repository: neither .claude nor flower.json may be a
// symlink (a link to /dev/zero, or to a file of the user's, is refused,
// not followed). The user's own file is read with readFile(path, 0): a
// dotfile manager may link it into a store.
func readProject(dir, name string) ([]byte, error) {
	claude := filepath.Join(dir, filepath.Dir(name))
	fi, err := os.Lstat(claude)
	switch {
	case missing(err):
		return nil, nil
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symlink: flower does not follow a symlink in a project", claude)
	case !fi.IsDir():
		return nil, nil // no folder, so no file in it
	}
	data, err := readFile(filepath.Join(dir, name), syscall.O_NOFOLLOW)
	if errors.Is(err, syscall.ELOOP) {
		return nil, errors.New("a symlink: flower does not follow a symlink in a project")
	}
	return data, err
}

// readFile reads the regular file at path, of at most MaxFileBytes, without
// blocking (a FIFO answers at once); a missing file is (nil, nil). It uses
// plain system calls: os.OpenFile would start Go's poller, which costs a
// hook's first open more than the read.
func readFile(path string, flags int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flags, 0)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFDIR:
		return nil, errors.New("a folder, not a regular file")
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return nil, errors.New("not a regular file")
	case st.Size > MaxFileBytes:
		return nil, fmt.Errorf("%d bytes, past the %d a configuration file may have", st.Size, MaxFileBytes)
	}
	b := make([]byte, st.Size+1) // one more, to see a file that grew
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	if n == len(b) {
		return nil, errors.New("it grew while it was read")
	}
	return b[:n], nil
}

// missing reports whether err says there is no file at a path: none by
// that name, or a file where a folder on the way should be.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
