package ephemeral

import (
	"path"
	"slices"
	"strings"
)

// readsDevice reports whether a, as it is or as an option's value
// (--file=/dev/zero, -f/dev/zero), names a device or kernel stream, or may
// (a glob): cleaned as the kernel reads it (//dev/zero), from each folder
// of dirs when relative, and from / when it climbs with ".." out of the
// folder the line starts in, which may lie just below / (/app, /root).
func readsDevice(a arg, dirs []Dir) bool {
	if len(dirs) <= 1 && strings.IndexByte(a.value, '/') < 0 {
		return false // the usual word: relative, from the folder the line starts in
	}
	paths := [3]string{a.value}
	if a.isOption() {
		_, paths[1], _ = strings.Cut(a.value, "=")
		if i := strings.IndexByte(a.value, '/'); i >= 0 {
			paths[2] = a.value[i:]
		}
	}
	for _, p := range paths {
		switch {
		case p == "":
		case path.IsAbs(p):
			if endless(path.Clean(p), a.glob) {
				return true
			}
		case slices.ContainsFunc(dirs, func(d Dir) bool { return d.Path != "" && endless(path.Join(d.Path, p), a.glob) }):
			return true
		default:
			if top, ok := climbed(p); ok && endless(top, a.glob) {
				return true
			}
		}
	}
	return false
}

// climbed returns the path p, relative or under ~/, names from a folder
// just below / when it climbs out of it (../../dev/zero from /app), or false.
func climbed(p string) (string, bool) {
	rel, home := strings.CutPrefix(p, "~/")
	if rel = path.Clean(rel); !home && path.IsAbs(p) || rel != ".." && !strings.HasPrefix(rel, "../") {
		return "", false
	}
	return path.Join("/", rel), true
}

// endless reports whether p, a clean absolute path (a pattern if glob), is
// or may match a device or kernel stream: all of /dev but /dev/null,
// /proc/kmsg and kcore, a process's descriptors and memory, trace_pipe.
// The folders themselves only list (ls /dev, find /proc).
func endless(p string, glob bool) bool {
	comps := strings.Split(p[1:], "/")
	last := len(comps) - 1
	spans := glob && strings.Contains(p, "**") // globstar: any depth
	is := func(i int, name string) bool { return matches(comps[i], name, glob) }
	if is(0, "dev") && (spans || last >= 1 && !(last == 1 && comps[1] == "null")) {
		return true
	}
	if is(0, "proc") {
		if spans || last == 1 && (is(1, "kmsg") || is(1, "kcore")) || last >= 2 && (is(last, "pagemap") || is(last, "mem")) {
			return true
		}
		for i := 2; i < last; i++ {
			if is(i, "fd") {
				return true
			}
		}
	}
	return comps[last] == "trace_pipe" || comps[last] == "trace_pipe_raw" ||
		glob && is(0, "sys") && (spans || last >= 1 && (is(last, "trace_pipe") || is(last, "trace_pipe_raw")))
}

// matches reports whether the path element c is name, or may be when c is
// a pattern (glob): one Go cannot read, or ** (globstar), may be anything.
func matches(c, name string, glob bool) bool {
	if c == name || !glob {
		return c == name
	}
	ok, err := path.Match(c, name)
	return ok || err != nil || strings.Contains(c, "**")
}

// walks reports whether a, an operand of a command that descends into
// folders, is or may be / (every mount: it may not end within the
// timeout), or for a reader (grep -r) a folder in /dev, /proc or /sys,
// which hold files that never end.
func walks(a arg, dirs []Dir, lists bool) bool {
	match := func(p string) bool {
		first, _, _ := strings.Cut(p[1:], "/")
		if lists {
			return p == "/" || a.glob && strings.ContainsAny(first, "*?[")
		}
		return p == "/" || matches(first, "dev", a.glob) || matches(first, "proc", a.glob) || matches(first, "sys", a.glob)
	}
	if path.IsAbs(a.value) {
		return match(path.Clean(a.value))
	}
	return slices.ContainsFunc(dirs, func(d Dir) bool { return d.Path != "" && !d.Mark && match(path.Join(d.Path, a.value)) })
}

// Dir is a folder a line's relative words may be read from: Path, or the
// folder the line starts in when it is "" and not known. Mark is the
// caller's, carried to each folder a cd reaches from it.
type Dir struct {
	Path string
	Mark bool
}

// Cd returns dirs and the folders a cd to target reaches from each of
// them, at most max in all, or false past max. From a folder not known
// only a climb near / is known (climbed, Mark set), and ~/ is taken for
// such a folder; "-" and ~user go where only the shell knows.
func Cd(dirs []Dir, target string, max int) ([]Dir, bool) {
	if target == "" || target == "-" || strings.HasPrefix(target, "~") && !strings.HasPrefix(target, "~/") {
		return dirs, true
	}
	next := slices.Clip(dirs)
	for _, d := range dirs {
		to := Dir{path.Join(d.Path, target), d.Mark}
		switch {
		case path.IsAbs(target):
			to.Path = path.Clean(target)
		case d.Path == "" || strings.HasPrefix(target, "~/"):
			top, ok := climbed(target)
			if !ok {
				continue
			}
			to = Dir{top, true}
		}
		// A folder known without a mark stands for the same one with it.
		if !slices.ContainsFunc(next, func(n Dir) bool { return n.Path == to.Path && (n.Mark == to.Mark || !n.Mark) }) {
			if len(next) == max {
				return next, false
			}
			next = append(next, to)
		}
	}
	return next, true
}

// maxDirs caps the folders cds are followed into, the first included.
const maxDirs = 9

// chdir follows a cd with these operands, or says why not: not into /dev,
// /proc or /sys, as Claude Code carries the folder over to the next call,
// whose relative reads cannot be placed.
func (c *classifier) chdir(operands []arg) string {
	c.cdSeen = true
	if len(operands) == 0 {
		return ""
	}
	if c.dirs == nil {
		c.dirs = []Dir{{}}
	}
	before := len(c.dirs)
	dirs, ok := Cd(c.dirs, operands[0].value, maxDirs)
	if !ok {
		return "cd changes folders more often than the classifier follows"
	}
	for _, d := range dirs[before:] {
		if top, _, _ := strings.Cut(d.Path[1:], "/"); top == "dev" || top == "proc" || top == "sys" {
			return "cd " + d.Path + ": a folder of devices and kernel streams, where a later relative read may never end"
		}
	}
	c.dirs = dirs
	return ""
}
