package ephemeral

import (
	"slices"
	"strings"
)

// flagRule refuses the options names spells, for why: "-x" a letter in
// any cluster (-rx: which letters take a value is not known), "--name" a
// long option or any prefix of it, as getopt_long and git read them (sort
// --outp=x), anything else a whole word (find -delete).
type flagRule struct {
	names []string
	why   string
}

// denied returns the first of rules the option word v trips, and how.
func denied(rules []flagRule, v string) (flagRule, string) {
	if len(rules) == 0 || len(v) < 2 || v[0] != '-' {
		return flagRule{}, ""
	}
	written, long := strings.CutPrefix(v, "--")
	if long {
		written, _, _ = strings.Cut(written, "=")
	}
	for _, f := range rules {
		for _, s := range f.names {
			if len(s) == 2 && !long && strings.IndexByte(v[1:], s[1]) >= 0 ||
				s[1] == '-' && long && written != "" && strings.HasPrefix(s[2:], written) ||
				len(s) > 2 && s[1] != '-' && v == s {
				return f, s
			}
		}
	}
	return flagRule{}, ""
}

// options is an allowlist, spelled as manuals spell options: -x, -x X (a
// value attached or in the next word), -x[N] (an optional attached
// number), --name, --name=X (a value after = or in the next word) and
// --name[=X] (an optional one). Long options are matched whole.
type options []string

// flag is an option as options.scan read it.
type flag struct{ name, value string }

// scan walks args with the allowlist o: the operands, the options with
// their values and, for an option not on the list, the offending word. A
// value in the next word must be plain: whether a program takes "-x" there
// for an option, or which words a glob makes, is the guess that lets a
// write through (uniq -s 1* in, with files 1 and 1out, writes in).
func (o options) scan(args []arg) (operands []arg, flags []flag, bad string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.value == "--" {
			return append(operands, args[i+1:]...), flags, ""
		}
		if !a.isOption() {
			operands = append(operands, a)
			continue
		}
		var next, ok bool
		if flags, next, ok = o.read(flags, a.value); !ok {
			return nil, nil, a.src
		}
		if next {
			if i++; i == len(args) || !args[i].plain() {
				return nil, nil, a.src + " without a plain value"
			}
			flags[len(flags)-1].value = args[i].value
		}
	}
	return operands, flags, ""
}

// read appends the options of the option word v to flags; next says the
// last one takes its value from the next word, ok that o allows them all.
func (o options) read(flags []flag, v string) (_ []flag, next, ok bool) {
	if strings.HasPrefix(v, "--") {
		name, value, hasValue := strings.Cut(v, "=")
		s := o.lookup(name)
		kind := strings.TrimPrefix(s, name)
		if s == "" || kind == "" && hasValue {
			return flags, false, false
		}
		return append(flags, flag{name, value}), kind == "=X" && !hasValue, true
	}
	for j := 1; j < len(v); j++ {
		s := o.lookup("-" + v[j:j+1])
		if s == "" {
			return flags, false, false
		}
		f := flag{name: s[:2]}
		switch s[2:] {
		case " X":
			f.value = v[j+1:]
			return append(flags, f), f.value == "", true
		case "[N]":
			k := j + 1
			for k < len(v) && isDigit(v[k]) {
				k++
			}
			f.value, j = v[j+1:k], k-1
		}
		flags = append(flags, f)
	}
	return flags, false, true
}

// lookup returns the spelling in o of the option name (-x, --name), or "".
func (o options) lookup(name string) string {
	for _, s := range o {
		if rest, ok := strings.CutPrefix(s, name); ok && (rest == "" || strings.IndexByte(" =[", rest[0]) >= 0) {
			return s
		}
	}
	return ""
}

// describe is the allowlist as --list prints it: letters, then long
// options, those without a value first.
func (o options) describe() string {
	kind := func(s string) int { // -x 2, -x X 4, -x[N] 5, --name 10, --name=X 11, --name[=X] 12
		if strings.HasPrefix(s, "--") {
			return 10 + strings.Count(s, "=") + strings.Count(s, "[")
		}
		return len(s)
	}
	return strings.Join(slices.SortedStableFunc(slices.Values(o), func(a, b string) int { return kind(a) - kind(b) }), " ")
}

// add puts an extra entry's option on o, spelled as o spells it whatever
// the entry calls the value (-n VALUE, --format=FMT, --color[=WHEN]).
func (o *options) add(spec string) bool {
	name, sep, value := spec, "", ""
	if i := strings.IndexAny(spec, " =["); i >= 0 {
		name, sep, value = spec[:i], spec[i:i+1], spec[i+1:]
	}
	if sep == "[" {
		var ok bool
		if value, ok = strings.CutPrefix(value, "="); !ok || !strings.HasSuffix(value, "]") {
			return false
		}
		value = strings.TrimSuffix(value, "]")
	}
	if sep != "" && (value == "" || !allBytes(value, "_-")) {
		return false
	}
	long, isLong := strings.CutPrefix(name, "--")
	switch {
	case isLong && (long == "" || long[0] == '-' || !allBytes(long, "-")):
		return false
	case isLong && sep == "[":
		name += "[=X]"
	case isLong && sep != "":
		name += "=X"
	case isLong:
	case len(name) != 2 || name[0] != '-' || !isWordByte(name[1], "") || sep == "=" || sep == "[":
		return false
	case sep == " ":
		name += " X"
	}
	*o = append(*o, name)
	return true
}
