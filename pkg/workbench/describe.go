package workbench

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

const (
	// HeaderBytes is how much of a file Describe looks at: a shebang, a
	// licence block and a long docstring.
	HeaderBytes = 4096
	// MaxDescription is the longest description in runes: forty of them
	// stay well within PromptCap.
	MaxDescription = 120
	ellipsis       = "…"
)

// syntax is how a file states what it is.
type syntax int

const (
	none     syntax = iota
	hash            // # comments: shell, Ruby, Perl, R, YAML, Makefile, …
	python          // # comments or a module docstring
	slash           // // and /* */ comments: Go, JS, TS, C, Rust, Java, …
	dash            // -- comments: SQL, Lua, Haskell
	markdown        // the first heading, else the first line
	text            // the first line
	html            // the <title>
	notebook        // the first cell of a Jupyter notebook
)

// hashNames take # comments without an extension.
const hashNames = " makefile gnumakefile dockerfile containerfile rakefile gemfile justfile procfile "

// syntaxes by lower-case extension, each between spaces.
var syntaxes = []struct {
	syntax
	exts string
}{
	{hash, " sh bash zsh ksh fish rb pl pm r ps1 yaml yml toml awk sed tcl jl nim cr ex exs mk cmake nix conf cfg tf "},
	{python, " py pyw pyi "},
	{slash, " go js mjs cjs jsx ts mts cts tsx c h cc cpp cxx hpp hh java kt kts rs swift scala cs dart zig groovy gradle proto php css scss less "},
	{dash, " sql lua hs elm "},
	{markdown, " md markdown mdx "},
	{text, " txt text log rst csv tsv "},
	{html, " html htm "},
	{notebook, " ipynb "},
}

// Describe returns the one-line description a file gives of itself in the
// first HeaderBytes of head, or "" when it gives none (or is binary): a
// script's first comment or docstring before any code (passing over
// shebangs, modelines, directives and licences), Markdown's first heading,
// the first line of text, HTML's <title>, a notebook's first cell. The kind
// comes from name's extension, else from a shebang.
func Describe(name string, head []byte) string {
	if len(head) > HeaderBytes {
		head = head[:HeaderBytes]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return ""
	}
	head = trimPartialRune(head)
	if !utf8.Valid(head) {
		return ""
	}
	s := strings.TrimPrefix(string(head), "\uFEFF")
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	return clean(describe(kind(name, lines), lines, s))
}

func kind(name string, lines []string) syntax {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	if !strings.Contains(base, " ") && strings.Contains(hashNames, " "+base+" ") {
		return hash
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 && !strings.Contains(base[i:], " ") {
		for _, s := range syntaxes {
			if strings.Contains(s.exts, " "+base[i+1:]+" ") {
				return s.syntax
			}
		}
	}
	// No known extension: a shebang names the interpreter.
	if first := lines[0]; strings.HasPrefix(first, "#!") {
		switch {
		case strings.Contains(first, "python"):
			return python
		case strings.Contains(first, "node"), strings.Contains(first, "deno"), strings.Contains(first, "bun"):
			return slash
		}
		return hash
	}
	return none
}

func describe(k syntax, lines []string, s string) string {
	switch k {
	case hash, python, slash, dash:
		return commentHeader(k, lines)
	case markdown:
		return markdownHeader(lines)
	case text:
		return firstLine(lines)
	case html:
		return htmlTitle(s)
	case notebook:
		return notebookHeader(s)
	}
	return ""
}

// commentHeader returns the first comment with words before any code; a
// licence, up to a blank line or the end of its block, is passed over.
func commentHeader(k syntax, lines []string) string {
	licence := false
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		var body string
		switch {
		case t == "":
			licence = false
			continue
		case i == 0 && strings.HasPrefix(t, "#!"):
			continue
		case k == python && docstringStart(t) >= 0:
			return docstring(lines[i:])
		case (k == hash || k == python) && strings.HasPrefix(t, "#"):
			body = strings.TrimLeft(t, "#")
		case k == slash && strings.HasPrefix(t, "//"):
			if hasPrefix(t, directives) {
				continue
			}
			body = strings.TrimLeft(t[2:], "/!")
		case k == slash && strings.HasPrefix(t, "/*"):
			d, end := blockComment(lines, i)
			if d != "" {
				return d
			}
			i = end
			continue
		case k == slash && isPreamble(t):
			continue
		case k == dash && strings.HasPrefix(t, "--"):
			// --[[ … ]] is a Lua block comment.
			body = strings.TrimSuffix(strings.TrimPrefix(strings.TrimLeft(t, "-"), "[["), "]]")
		default:
			return "" // code: the header is over
		}
		switch d, v := commentWords(body); {
		case v == isLicence:
			licence = true
		case v == isWords && !licence:
			return d
		}
	}
	return ""
}

type verdict int

const (
	isSkip verdict = iota
	isWords
	isLicence
)

// Comment lines that are no description.
var (
	licenceStarts = []string{"copyright", "(c)", "©", "spdx-license-identifier"}
	skipStarts    = []string{"vim:", "vi:", "coding:", "coding=", "shellcheck ", "eslint", "prettier-ignore", "@ts-", "@flow", "type:"}
	directives    = []string{"//go:", "// +build", "//+build", "//nolint", "//#", "/// <"}
)

// commentWords returns one comment line's text and whether it is a
// description, a licence's start, or neither.
func commentWords(body string) (string, verdict) {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(body), "=*#~"))
	l := strings.ToLower(t)
	switch {
	case hasPrefix(l, licenceStarts):
		return "", isLicence
	case !hasWord(t), strings.Contains(l, "-*-"), hasPrefix(l, skipStarts):
		return "", isSkip
	}
	return t, isWords
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isPreamble reports a line before a C-family header that is no code.
func isPreamble(t string) bool {
	t = strings.TrimSuffix(t, ";")
	return t == `"use strict"` || t == `'use strict'` || t == "<?php"
}

// blockComment returns the first line with words of the /* … */ comment
// opening at lines[i] (none after a licence), and the line where it ends.
func blockComment(lines []string, i int) (string, int) {
	t := strings.TrimSpace(lines[i])[2:]
	licence := false
	for {
		body, closed := t, false
		if j := strings.Index(t, "*/"); j >= 0 {
			body, closed = t[:j], true
		}
		switch d, v := commentWords(strings.TrimLeft(strings.TrimSpace(body), "*!")); {
		case v == isLicence:
			licence = true
		case v == isWords && !licence:
			return d, i
		}
		if closed || i+1 >= len(lines) {
			return "", i
		}
		i++
		t = strings.TrimSpace(lines[i])
	}
}

// docstringStart returns where a Python string literal's quotes begin on
// line t (after an r/u/b prefix), or -1.
func docstringStart(t string) int {
	i := 0
	for i < len(t) && i < 2 && strings.ContainsRune("rRuUbB", rune(t[i])) {
		i++
	}
	if i < len(t) && (t[i] == '"' || t[i] == '\'') {
		return i
	}
	return -1
}

// docstring returns the first line with words of the string literal that
// starts lines[0].
func docstring(lines []string) string {
	t := strings.TrimSpace(lines[0])
	t = t[docstringStart(t):]
	for _, q := range []string{`"""`, `'''`} {
		if !strings.HasPrefix(t, q) {
			continue
		}
		rest := t[len(q):]
		for j := 0; ; {
			body, closed := rest, false
			if k := strings.Index(rest, q); k >= 0 {
				body, closed = rest[:k], true
			}
			if hasWord(body) {
				return strings.TrimSpace(body)
			}
			if closed {
				return ""
			}
			if j++; j >= len(lines) {
				return ""
			}
			rest = lines[j]
		}
	}
	q := t[0]
	body := t[1:]
	for k := 0; k < len(body); k++ {
		switch body[k] {
		case '\\':
			k++
		case q:
			return body[:k]
		}
	}
	return body
}

// markdownHeader returns the first ATX heading, else the first line with
// words, passing over front matter and HTML comments.
func markdownHeader(lines []string) string {
	first := ""
	inFront := len(lines) > 0 && strings.TrimSpace(lines[0]) == "---"
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if inFront {
			if i > 0 && (t == "---" || t == "...") {
				inFront = false
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "<!--") {
			continue
		}
		if h := strings.TrimLeft(t, "#"); len(t)-len(h) <= 6 && h != t && (h == "" || h[0] == ' ' || h[0] == '\t') {
			if h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#")); hasWord(h) {
				return h
			}
			continue
		}
		if first == "" && hasWord(t) {
			first = t
		}
	}
	return first
}

func firstLine(lines []string) string {
	for _, line := range lines {
		if t := strings.TrimSpace(line); hasWord(t) {
			return t
		}
	}
	return ""
}

func htmlTitle(s string) string {
	l := strings.ToLower(s)
	i := strings.Index(l, "<title")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(l[i:], '>')
	if j < 0 {
		return ""
	}
	start := i + j + 1
	end := strings.Index(l[start:], "</title")
	if end < 0 {
		return s[start:]
	}
	return s[start : start+end]
}

// notebookHeader describes a notebook by its first non-empty cell; gjson
// reads it even when HeaderBytes cut the JSON short.
func notebookHeader(s string) string {
	for _, cell := range gjson.Get(s, "cells").Array() {
		src := cell.Get("source")
		body := src.String()
		if src.IsArray() {
			body = ""
			for _, part := range src.Array() {
				body += part.String()
			}
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		lines := strings.Split(body, "\n")
		if cell.Get("cell_type").String() == "markdown" {
			return markdownHeader(lines)
		}
		return commentHeader(python, lines)
	}
	return ""
}

func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// clean makes s one line of printable text of at most MaxDescription runes:
// whitespace runs become one space, unprintable runes (bidi overrides,
// zero-width marks) go, and '<' and '>' become '‹' and '›' so that no
// description reads as a tag.
func clean(s string) string {
	out := make([]rune, 0, MaxDescription+1)
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = len(out) > 0
			continue
		case !unicode.IsPrint(r) || r == utf8.RuneError:
			continue
		case r == '<':
			r = '‹'
		case r == '>':
			r = '›'
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > MaxDescription {
			return strings.TrimSpace(string(out[:MaxDescription-1])) + ellipsis
		}
	}
	return string(out)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}
