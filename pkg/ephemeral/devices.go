package ephemeral

import (
	"path"
	"slices"
	"strings"
)

// Reading a device is not a glance: /dev/zero, /dev/urandom, /dev/tty and
// the like never end, and bash itself opens /dev/tcp/HOST/PORT as a socket.
// These rules read paths as the kernel does after bash has handed them over:
// cleaned (//dev/zero, /./dev/zero and /tmp/../dev/zero are /dev/zero), and
// relative ones from every folder an earlier cd of the line moved to, and
// as reaching / when they climb out of the folder the line starts in or the
// home folder with "..". What the text cannot tell is left out: which
// folder the line starts in (an earlier call's cd), and a symlink or FIFO in
// the repository that leads to a device; Claude Code's timeout ends such a
// read.

// network reports whether a value names bash's network pseudo-files. No word
// of a glance needs to hold one, so it is refused wherever it stands.
func network(v string) bool {
	return strings.Contains(v, "/dev/tcp") || strings.Contains(v, "/dev/udp")
}

// readsDevice reports whether a's value, as it is or as an option's value
// (--file=/dev/zero, -f/dev/zero), names a device or kernel stream, taken
// from each of dirs when it is relative. A glob names one when some path it
// may expand to does.
//
// A relative word is also read from the folder the line starts in, which
// is unknown, but a word climbing out of it with ".." may reach /, from a
// folder near it (/app, or /root for ~/): cat ../../dev/zero. tops are the
// folders cds that climbed so may have reached (classifier.tops).
func readsDevice(a arg, dirs, tops []string) bool {
	if len(dirs) == 0 && len(tops) == 0 && strings.IndexByte(a.value, '/') < 0 {
		return false // the usual word: relative, from a folder not known
	}
	paths := [3]string{a.value}
	if a.isOption() {
		if _, v, ok := strings.Cut(a.value, "="); ok {
			paths[1] = v
		}
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
		default:
			for _, d := range slices.Concat(dirs, tops) {
				if endless(path.Join(d, p), a.glob) {
					return true
				}
			}
			if top, ok := climbed(p); ok && endless(top, a.glob) {
				return true
			}
		}
	}
	return false
}

// climbed returns the path p, relative or under ~/, names when the folder
// it is read from lies just below / and p climbs out of it with "..": the
// rest of p from / ("../../dev/zero" is /dev/zero from /app). ok is false
// when p does not climb.
func climbed(p string) (string, bool) {
	rel, home := strings.CutPrefix(p, "~/")
	if !home && path.IsAbs(p) {
		return "", false
	}
	rel = path.Clean(rel)
	if rel != ".." && !strings.HasPrefix(rel, "../") {
		return "", false
	}
	return path.Join("/", rel), true
}

// walksDevices reports whether a, an operand of a command that reads
// folders recursively (grep -r, rg, diff -r), is / or lies in /dev, /proc or
// /sys, or may: there it meets files that never end (/proc/self/pagemap,
// trace_pipe, a descriptor under /dev/fd). It is read as readsDevice reads
// a word, from each of dirs when relative.
func walksDevices(a arg, dirs []string) bool {
	walks := func(p string) bool {
		if p == "/" {
			return true
		}
		first, _, _ := strings.Cut(p[1:], "/")
		for _, root := range []string{"dev", "proc", "sys"} {
			if !a.glob && first == root {
				return true
			}
			if ok, err := path.Match(first, root); a.glob && (ok || err != nil || strings.Contains(first, "**")) {
				return true
			}
		}
		return false
	}
	return anyPath(a, dirs, walks)
}

// anyPath reports whether match holds for the clean absolute path a names:
// a.value itself when it is absolute, else a.value from each of dirs.
func anyPath(a arg, dirs []string, match func(p string) bool) bool {
	if path.IsAbs(a.value) {
		return match(path.Clean(a.value))
	}
	for _, d := range dirs {
		if match(path.Join(d, a.value)) {
			return true
		}
	}
	return false
}

// recursesGrep reports whether grep's options may make it read folders
// recursively: -r, -R, -d recurse and their long forms, read generously
// (any short cluster holding r, R or d, any long option that may abbreviate
// one of them).
func recursesGrep(args []arg) bool {
	for _, a := range args {
		if !a.isOption() {
			continue
		}
		long, isLong := strings.CutPrefix(a.value, "--")
		if !isLong {
			if strings.ContainsAny(a.value[1:], "rRd") {
				return true
			}
			continue
		}
		name, _, _ := strings.Cut(long, "=")
		for _, l := range []string{"recursive", "dereference-recursive", "directories"} {
			if strings.HasPrefix(l, name) {
				return true
			}
		}
	}
	return false
}

// recursesDiff reports whether diff's options may make it compare folders
// recursively (-r, --recursive).
func recursesDiff(args []arg) bool {
	for _, a := range args {
		if a.isOption() {
			if _, hit := denied(diffRecursive, a); hit {
				return true
			}
		}
	}
	return false
}

var diffRecursive = []flagRule{{short: 'r', long: "recursive"}}

// always is the recurses of a command that always reads folders
// recursively when given one (rg), and the walks of one that always walks
// them (find, du, tree).
func always([]arg) bool { return true }

// recursesLs reports whether ls's options may make it list folders
// recursively: an R in a short cluster, a long option that may abbreviate
// --recursive.
func recursesLs(args []arg) bool {
	for _, a := range args {
		long, isLong := strings.CutPrefix(a.value, "--")
		switch {
		case !a.isOption():
		case !isLong && strings.IndexByte(a.value[1:], 'R') >= 0:
			return true
		case isLong && long != "" && strings.HasPrefix("recursive", long):
			return true
		}
	}
	return false
}

// walksRoot reports whether a, an operand of a command that walks folders
// (find, du, tree, ls -R), is / or may be, read as walksDevices reads it:
// the whole file system, every mount included, which on a large disk or a
// network mount does not end within a call's timeout (find / under a
// loaded sandbox ran past FuzzClassify's 10 s).
func walksRoot(a arg, dirs []string) bool {
	return anyPath(a, dirs, func(p string) bool {
		first, _, _ := strings.Cut(p[1:], "/")
		return p == "/" || a.glob && strings.ContainsAny(first, "*?[")
	})
}

// endless reports whether p, a clean absolute path (a pattern if glob), is
// or may match a device or kernel stream: anything under /dev but /dev/null,
// /proc/kmsg, a process's descriptors under /proc/PID/fd/, and tracing's
// trace_pipe files. The folders themselves only list (ls /dev, find /proc).
func endless(p string, glob bool) bool {
	comps := strings.Split(p[1:], "/")
	last := len(comps) - 1
	spans := glob && strings.Contains(p, "**") // globstar: any depth
	is := func(i int, name string) bool {
		if !glob {
			return comps[i] == name
		}
		ok, err := path.Match(comps[i], name)
		return ok || err != nil || strings.Contains(comps[i], "**")
	}
	if is(0, "dev") && (spans || last >= 1 && !(last == 1 && comps[1] == "null")) {
		return true
	}
	if is(0, "proc") {
		if spans || last == 1 && (is(1, "kmsg") || is(1, "kcore")) {
			return true
		}
		// A process's descriptors, and its memory as a file the size of
		// its address space.
		if last >= 2 && (is(last, "pagemap") || is(last, "mem")) {
			return true
		}
		for i := 2; i < last; i++ {
			if is(i, "fd") {
				return true
			}
		}
	}
	if comps[last] == "trace_pipe" || comps[last] == "trace_pipe_raw" {
		return true
	}
	return glob && is(0, "sys") && (spans || last >= 1 && (is(last, "trace_pipe") || is(last, "trace_pipe_raw")))
}

// maxDirs caps the folders the classifier follows cds into: each cd is
// taken from every folder an earlier one may have reached.
const maxDirs = 8

// cdOptions are the options of bash's cd.
var cdOptions = &options{short: "LPe@"}

// chdir records where a cd with these arguments moves to and returns why
// it is refused, or "". A cd into /dev, /proc or /sys is refused: Claude
// Code carries the folder over to the next call, whose relative reads the
// classifier cannot place. "cd" alone, "cd -" and "cd ~user" go where
// only the running shell knows; so do a relative cd from the folder the
// line starts in and "cd ~/…", unless they climb out of it with ".."
// (climbed).
func (c *classifier) chdir(args []arg) string {
	c.cdSeen = true
	operands, _, _ := cdOptions.scan(args)
	if len(operands) == 0 {
		return ""
	}
	target := operands[0].value
	var next, tops []string
	switch {
	case target == "-", strings.HasPrefix(target, "~") && !strings.HasPrefix(target, "~/"):
		return ""
	case path.IsAbs(target):
		next = []string{path.Clean(target)}
	case strings.HasPrefix(target, "~/"):
		if top, ok := climbed(target); ok {
			tops = append(tops, top) // the home folder may be /root
		}
	default:
		for _, d := range c.dirs {
			next = append(next, path.Join(d, target))
		}
		for _, d := range c.tops {
			tops = append(tops, path.Join(d, target))
		}
		// From the unknown folder: where it climbs to, if it is near /.
		// A cd into a folder below it first ("cd a && cd ../../dev")
		// only climbs less, to the same place or not out at all.
		if top, ok := climbed(target); ok {
			tops = append(tops, top)
		}
	}
	for _, d := range slices.Concat(next, tops) {
		if deviceFolder(d) {
			return d + ": a folder of devices and kernel streams, where a later relative read may never end"
		}
	}
	var why string
	c.dirs, why = addDirs(c.dirs, next)
	if why == "" {
		c.tops, why = addDirs(c.tops, tops)
	}
	return why
}

// addDirs adds the folders of next that dirs does not hold, up to maxDirs.
func addDirs(dirs, next []string) ([]string, string) {
	for _, d := range next {
		if slices.Contains(dirs, d) {
			continue
		}
		if len(dirs) == maxDirs {
			return dirs, "changes folders more often than the classifier follows"
		}
		dirs = append(dirs, d)
	}
	return dirs, ""
}

// deviceFolder reports whether d, a clean absolute path, is /dev, /proc or
// /sys or lies under one of them.
func deviceFolder(d string) bool {
	for _, root := range []string{"/dev", "/proc", "/sys"} {
		if d == root || strings.HasPrefix(d, root+"/") {
			return true
		}
	}
	return false
}
