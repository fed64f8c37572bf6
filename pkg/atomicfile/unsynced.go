package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// WriteNewUnsynced is WriteNew without the fsync. The file is still
// complete or absent for every reader, also after the writing process
// crashes; only a crash of the whole system (power loss, kernel panic)
// before the kernel writes it back may lose it. For files that only copy
// data kept elsewhere, where that wait is not worth its cost.
func WriteNewUnsynced(path string, perm os.FileMode, fill func(io.Writer) error) error {
	return WriteNewIn(filepath.Dir(path), path, perm, false, fill)
}
