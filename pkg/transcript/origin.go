package transcript

import (
	"path/filepath"
	"strings"
)

// maxFolderName is where Claude Code cuts the name of a project's folder
// under projects/, adding "-" and a hash of the whole name.
const maxFolderName = 200

// Origin is the folder the session of the transcript at path started in
// (FirstCwd) when the folder the transcript lies in is named after it
// (ProjectDir), else "": a transcript is text anyone can write, its place
// is Claude Code's.
func Origin(path string) string {
	cwd := FirstCwd(path)
	if cwd == "" || !filepath.IsAbs(cwd) {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	folder := filepath.Base(filepath.Dir(abs))
	for _, dir := range []string{cwd, resolve(cwd)} {
		name := folderName(dir)
		if name == folder || len(name) > maxFolderName && strings.HasPrefix(folder, name[:maxFolderName]+"-") {
			return filepath.Clean(dir)
		}
	}
	return ""
}

// folderName is the name ProjectDir gives the folder of cwd.
func folderName(cwd string) string {
	name := []byte(cwd)
	for i, c := range name {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			name[i] = '-'
		}
	}
	return string(name)
}
