package workbench

import (
	"os"
	"path/filepath"
	"strings"
)

// The workbench layout, relative to its root.
const (
	ScriptsDir   = "scripts"
	ArtifactsDir = "artifacts"
	SpillDir     = "spill"
	IndexFile    = "INDEX.md"
	// StateDir holds index-guard's bookkeeping: what each session was last
	// shown of the index, and the record that spares a rescan. It is hidden
	// so that nothing lists it, and lives in the workbench so that it goes
	// where the workbench goes.
	StateDir = ".state"
	// gitignoreFile keeps what is regenerated or per-machine out of the
	// project's history; scripts/ and artifacts/ are meant to travel with it.
	gitignoreFile = ".gitignore"
)

// DirPerm is the mode of every folder the workbench creates: spilled tool
// output and artifacts may hold anything a tool printed, so only the owner
// reads them.
const DirPerm = 0o700

// FilePerm is the mode of the files the workbench itself writes.
const FilePerm = 0o600

// gitignore is the .gitignore a workbench gets when flower creates it, or
// when index-guard finds it without one.
const gitignore = `# Written by flower on creating the workbench; edit freely, it is never replaced.
# scripts/ and artifacts/ travel with the project; these do not.
/INDEX.md
/spill/
/.state/
`

// Indexed reports whether path (absolute, or relative to the current
// directory) lies under scripts/ or artifacts/ of the workbench at root, after
// cleaning it and resolving symlinks on both sides: a write there changes the
// index. INDEX.md, spill/ and .state/ are not indexed, so writing them never
// triggers a regeneration.
func Indexed(root, path string) bool {
	rel, ok := Within(root, path)
	if !ok {
		return false
	}
	first, rest, ok := strings.Cut(filepath.ToSlash(rel), "/")
	return ok && rest != "" && (first == ScriptsDir || first == ArtifactsDir)
}

// Within reports whether path (absolute, or relative to the current
// directory) lies strictly inside dir, after cleaning both and resolving
// their symlinks as far as they exist, and returns it relative to dir. A
// symlink can make a path outside look inside and the reverse, so the hooks
// that ask "is this file in the workbench?" all ask here.
func Within(dir, path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(resolve(dirAbs), resolve(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// resolve returns path, absolute and clean, with symlinks resolved as far
// as it exists: a path that does not exist (yet, or any more) resolves
// through its nearest existing ancestor. That ancestor is found in one walk
// down from the root that tests each component once; resolving every
// ancestor in turn from the bottom up made a missing path of n components
// cost n² lookups (15,000 of them took spill-guard 6 s).
func resolve(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	sep := string(filepath.Separator)
	exists, rest := sep, strings.TrimPrefix(path, sep) // exists is known to, rest not yet
	for rest != "" {
		comp, tail, _ := strings.Cut(rest, sep)
		next := filepath.Join(exists, comp)
		if _, err := os.Lstat(next); err != nil {
			break
		}
		exists, rest = next, tail
	}
	base, err := filepath.EvalSymlinks(exists)
	if err != nil {
		return path // a dangling symlink on the way: nothing to resolve through
	}
	return filepath.Join(base, rest)
}
