//go:build !linux

package hook

// adviseHugePages is a no-op where there is no madvise(MADV_HUGEPAGE).
func adviseHugePages([]byte) {}
