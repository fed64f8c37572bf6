package workbench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFiles matches the whole-process bench case (tools/bench/cases_index.go).
const benchFiles = 1000

func benchWorkbench(b *testing.B) string {
	root := b.TempDir()
	for i := range benchFiles {
		if i%10 < 7 {
			put(b, root, fmt.Sprintf("scripts/m%d/s%04d.sh", i%5, i), fmt.Sprintf("#!/bin/sh\n# Step %d of the survey\n", i), i*7919%benchFiles)
		} else {
			put(b, root, fmt.Sprintf("artifacts/r%04d.md", i), fmt.Sprintf("# Report %d\n", i), i*7919%benchFiles)
		}
	}
	// Folders as old as their files: a record holding an mtime of the last
	// two seconds is not saved (racyWindow), and a workbench in use was
	// filled before the prompt that reads it.
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chtimes(p, base, base)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return root
}

func BenchmarkScan1000(b *testing.B) {
	w := opened(b, benchWorkbench(b))
	for b.Loop() {
		if _, _, err := w.scan(DefaultMaxEntries); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefreshUnchanged is a full rescan: scan, render, compare with
// INDEX.md, write nothing but the record.
func BenchmarkRefreshUnchanged(b *testing.B) {
	w := opened(b, benchWorkbench(b))
	if _, err := w.Refresh(DefaultMaxEntries); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := w.Refresh(DefaultMaxEntries); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCurrentUnchanged is the common prompt: the record matches, no
// walk.
func BenchmarkCurrentUnchanged(b *testing.B) {
	w := opened(b, benchWorkbench(b))
	if _, err := w.Refresh(DefaultMaxEntries); err != nil {
		b.Fatal(err)
	}
	if w.recorded(DefaultMaxEntries) == nil {
		b.Fatal("no record saved")
	}
	for b.Loop() {
		if _, err := w.Current(DefaultMaxEntries); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDescribe(b *testing.B) {
	head := []byte("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\"\"\"\n" + strings.Repeat("x", 3000) + "\n\"\"\"\n")
	for b.Loop() {
		Describe("a.py", head)
	}
}

func BenchmarkBlock(b *testing.B) {
	root := benchWorkbench(b)
	ix := scan(b, root, DefaultMaxEntries)
	for b.Loop() {
		if _, _, err := Block(root, false, ix, Coordinator); err != nil {
			b.Fatal(err)
		}
	}
}
