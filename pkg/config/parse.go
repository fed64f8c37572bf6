package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/extra"
	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Limits on a configuration file. A real one is a few hundred bytes, a
// dozen keys and a few glance entries; a file past them is refused whole.
const (
	// MaxFileBytes is the most a file may hold: a project file is read on
	// every hook call, and a repository can commit a file of any size.
	MaxFileBytes = 64 << 10
	// maxDepth caps how deep objects and arrays nest: the deepest a valid
	// file goes is 4 (an entry's options). Checked before gjson, whose
	// validation recurses once a level.
	maxDepth = 8
	// maxEntries bounds the glance entries of one file, and maxItems the
	// names of a list.
	maxEntries = 200
	maxItems   = 200
	// maxPath bounds a path's length (PATH_MAX).
	maxPath = 4096
)

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

// setting is one key's value as a file sets it.
type setting struct {
	line   int
	b      bool
	n      int
	s      string   // a path, as written
	list   []string // names
	extras []extra.Entry
}

// layer is what one file sets, by key name.
type layer map[string]*setting

// parse reads data, a configuration file at path, into the settings it
// holds. source names the file in the reasons of its glance entries.
func parse(data []byte, path, source string) (layer, error) {
	p := parser{path: path, src: string(data), source: source, out: layer{}}
	switch {
	case len(data) > MaxFileBytes:
		return nil, p.fail(0, fmt.Sprintf("%d bytes, past the %d a configuration file may have", len(data), MaxFileBytes))
	case !utf8.Valid(data):
		return nil, p.fail(0, "not valid UTF-8")
	}
	if at := tooDeep(p.src); at >= 0 {
		return nil, p.fail(p.line(at), fmt.Sprintf("nested more than %d deep", maxDepth))
	}
	if !gjson.Valid(p.src) {
		return nil, p.syntaxError()
	}
	start := jsonscan.SkipSpace(p.src, 0)
	if p.src[start] != '{' {
		return nil, p.fail(p.line(start), "not a JSON object")
	}
	if err := p.object(p.src[start:], start, ""); err != nil {
		return nil, err
	}
	return p.out, nil
}

type parser struct {
	path, src, source string
	out               layer
}

func (p *parser) fail(line int, msg string) error {
	return &FileError{Path: p.path, Line: line, Msg: msg}
}

// line is the line of the byte at offset.
func (p *parser) line(offset int) int {
	return 1 + strings.Count(p.src[:min(offset, len(p.src))], "\n")
}

// syntaxError is the error for a file that is not JSON, at the line
// encoding/json finds the fault on.
func (p *parser) syntaxError() error {
	var v any
	err := json.Unmarshal([]byte(p.src), &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return p.fail(p.line(int(se.Offset)), "not valid JSON: "+se.Error())
	}
	return p.fail(0, "not valid JSON")
}

// tooDeep returns the offset where objects and arrays nest past maxDepth,
// or -1.
func tooDeep(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = jsonscan.StringEnd(s, i) - 1
		case '{', '[':
			if depth++; depth > maxDepth {
				return i
			}
		case '}', ']':
			depth--
		}
	}
	return -1
}

// object reads the members of obj, found at offset base, under the
// section prefix ("" for the top level, "spill-guard." for a section).
func (p *parser) object(obj string, base int, prefix string) error {
	seen := map[string]bool{}
	var err error
	jsonscan.EachMember(obj, func(rawKey, value string, at int) bool {
		leaf := jsonscan.Key(rawKey)
		name := prefix + leaf
		line := p.line(base + at)
		switch {
		case strings.Contains(leaf, "."):
			err = p.fail(line, fmt.Sprintf("unknown key %q (write a section as an object: {\"spill-guard\": {\"threshold\": 8000}})", name))
		case seen[name]:
			err = p.fail(line, fmt.Sprintf("%q is given twice (a reader could take either)", name))
		case prefix == "" && name == "$schema":
		case prefix == "" && slices.Contains(sections, name):
			if !strings.HasPrefix(value, "{") {
				err = p.fail(line, fmt.Sprintf("%q is %s, want an object", name, jsonkind.Of(gjson.Parse(value))))
				break
			}
			err = p.object(value, base+at, name+".")
		default:
			err = p.member(name, value, line, base+at)
		}
		seen[name] = true
		return err == nil
	})
	return err
}

// member reads one key's value.
func (p *parser) member(name, value string, line, at int) error {
	k := keyNamed(name)
	if k == nil {
		return p.fail(line, fmt.Sprintf("unknown key %q%s", name, suggest(name)))
	}
	v := gjson.Parse(value)
	s := &setting{line: line}
	want := func(what string) error {
		return p.fail(line, fmt.Sprintf("%s is %s, want %s", name, jsonkind.Of(v), what))
	}
	switch k.kind {
	case boolKind:
		if v.Type != gjson.True && v.Type != gjson.False {
			return want("true or false")
		}
		s.b = v.Bool()
	case intKind:
		if v.Type != gjson.Number || v.Num != float64(int(v.Num)) || strings.ContainsAny(v.Raw, ".eE") {
			return want("a whole number")
		}
		if v.Num < float64(k.min) || v.Num > 1<<30 {
			return p.fail(line, fmt.Sprintf("%s is %s, want %d to %d", name, v.Raw, k.min, 1<<30))
		}
		s.n = int(v.Num)
	case pathKind:
		if v.Type != gjson.String {
			return want("a path (a string)")
		}
		if why := badPath(v.Str); why != "" {
			return p.fail(line, name+" "+why)
		}
		if name == "log.file" && !strings.HasPrefix(v.Str, "/") && !strings.HasPrefix(v.Str, "~/") {
			return p.fail(line, "log.file is not absolute (start it with / or ~/)")
		}
		s.s = v.Str
	case listKind:
		if !v.IsArray() {
			return want("an array of strings")
		}
		var err error
		if s.list, err = p.names(k, v, line); err != nil {
			return err
		}
	case entriesKind:
		if !v.IsArray() {
			return want("an array of entries ({\"command\": …})")
		}
		var err error
		if s.extras, err = p.entries(k, value, at); err != nil {
			return err
		}
	}
	p.out[name] = s
	return nil
}

// isToolName reports whether s has the shape of a Claude Code tool name
// (mcp__server__tool too): letters, digits, _ and -. A loop, not a regexp:
// one compiled at start would cost every hook run.
func isToolName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c|0x20 >= 'a' && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// names reads a list of strings: tool names, or project folders.
func (p *parser) names(k *Key, v gjson.Result, line int) ([]string, error) {
	var out []string
	var err error
	v.ForEach(func(_, item gjson.Result) bool {
		switch {
		case item.Type != gjson.String:
			err = p.fail(line, fmt.Sprintf("%s holds %s, want strings", k.Name, jsonkind.Of(item)))
		case len(out) == maxItems:
			err = p.fail(line, fmt.Sprintf("%s holds more than %d names", k.Name, maxItems))
		case k.Name == "trusted-projects":
			if why := badPath(item.Str); why != "" {
				err = p.fail(line, fmt.Sprintf("trusted-projects %q %s", item.Str, why))
			} else if !strings.HasPrefix(item.Str, "/") && !strings.HasPrefix(item.Str, "~/") {
				err = p.fail(line, fmt.Sprintf("trusted-projects %q is not absolute (start it with / or ~/)", item.Str))
			}
		case !isToolName(item.Str):
			err = p.fail(line, fmt.Sprintf("%s %q is not a tool name (letters, digits, _ and -)", k.Name, item.Str))
		}
		if err == nil && !slices.Contains(out, item.Str) {
			out = append(out, item.Str)
		}
		return err == nil
	})
	if err == nil && len(out) < k.min {
		err = p.fail(line, fmt.Sprintf("%s names no tool (leave the key out for the default)", k.Name))
	}
	return out, err
}

// entries reads an array of glance-table entries, each an object with
// "command" and optionally "options" and "operands". What an entry may
// name is for the glance table to judge (ephemeral.NewGlances), which
// leaves a bad one out and says so; here only its JSON shape is read, so
// that reading a configuration does not link the shell parser.
func (p *parser) entries(k *Key, arr string, base int) ([]extra.Entry, error) {
	var out []extra.Entry
	var err error
	jsonscan.EachElement(arr, func(raw string, at int) bool {
		if len(out) == maxEntries {
			err = p.fail(p.line(base+at), fmt.Sprintf("%s holds more than %d entries", k.Name, maxEntries))
			return false
		}
		var e extra.Entry
		e, err = p.entry(k, raw, base+at)
		out = append(out, e)
		return err == nil
	})
	return out, err
}

// entry reads one entry object.
func (p *parser) entry(k *Key, raw string, at int) (extra.Entry, error) {
	line := p.line(at)
	e := extra.Entry{Operands: -1, MainThread: k.Name == "delegate-guard.main-thread", Source: p.source, File: p.path, Line: line}
	if !strings.HasPrefix(raw, "{") {
		return e, p.fail(line, fmt.Sprintf("%s holds %s, want objects ({\"command\": …})", k.Name, jsonkind.Of(gjson.Parse(raw))))
	}
	seen := map[string]bool{}
	var err error
	jsonscan.EachMember(raw, func(rawKey, value string, vat int) bool {
		name, v, line := jsonscan.Key(rawKey), gjson.Parse(value), p.line(at+vat)
		if seen[name] {
			err = p.fail(line, fmt.Sprintf("%s entry: %q is given twice", k.Name, name))
			return false
		}
		seen[name] = true
		switch name {
		case "command":
			if v.Type != gjson.String {
				err = p.fail(line, fmt.Sprintf("%s entry: command is %s, want a string", k.Name, jsonkind.Of(v)))
			}
			e.Command = v.Str
		case "options":
			if !v.IsArray() {
				err = p.fail(line, fmt.Sprintf("%s entry: options is %s, want an array of strings", k.Name, jsonkind.Of(v)))
				break
			}
			v.ForEach(func(_, o gjson.Result) bool {
				if o.Type != gjson.String {
					err = p.fail(line, fmt.Sprintf("%s entry: options holds %s, want strings", k.Name, jsonkind.Of(o)))
				}
				e.Options = append(e.Options, o.Str)
				return err == nil
			})
		case "operands":
			if v.Type != gjson.Number || v.Num != float64(int(v.Num)) || v.Num < 0 || v.Num > 1000 {
				err = p.fail(line, fmt.Sprintf("%s entry: operands is %s, want a whole number from 0 to 1000 (leave it out for any number)", k.Name, v.Raw))
			}
			e.Operands = int(v.Num)
		default:
			err = p.fail(line, fmt.Sprintf("%s entry: unknown key %q (command, options, operands)", k.Name, name))
		}
		return err == nil
	})
	if err == nil && !seen["command"] {
		err = p.fail(line, k.Name+" entry has no command")
	}
	return e, err
}

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

// suggest names a known key close to name: the same last part under
// another section, or the same section and a key with a similar name.
func suggest(name string) string {
	_, leaf, _ := strings.Cut(name, ".")
	if leaf == "" {
		leaf = name
	}
	for _, k := range keys {
		if k.Name == leaf || strings.HasSuffix(k.Name, "."+leaf) {
			return fmt.Sprintf(" (did you mean %q?)", k.Name)
		}
	}
	return ""
}
