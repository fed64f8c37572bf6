package tests

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/flowerhooks/flower/internal/delegateguard"
	"github.com/flowerhooks/flower/internal/indexguard"
	"github.com/flowerhooks/flower/internal/spillguard"
)

// openPTY opens a pseudo-terminal and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal to test with: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	ioctl := func(req uintptr, arg unsafe.Pointer) {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), req, uintptr(arg)); errno != 0 {
			t.Fatalf("ioctl %#x: %v", req, errno)
		}
	}
	var unlock int32
	ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	return pts
}

// TestHooksAtATerminal: a hook started by hand at a terminal says in one line
// that it reads a hook payload on stdin and exits 1, instead of waiting;
// /dev/null (a character device too) is empty input, as before.
func TestHooksAtATerminal(t *testing.T) {
	pts := openPTY(t)
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	for name, main := range map[string]mainFunc{
		"delegate-guard": delegateguard.Main,
		"index-guard":    indexguard.Main,
		"spill-guard":    spillguard.Main,
	} {
		t.Run(name, func(t *testing.T) {
			for stdin, want := range map[*os.File]string{
				pts:     name + ": stdin is a terminal: this is a Claude Code hook, it reads a hook payload (JSON) on stdin; see --help\n",
				devNull: name + ": empty stdin: expected a hook payload (a JSON object)\n",
			} {
				var stdout, stderr bytes.Buffer
				done := make(chan int, 1)
				go func() { done <- main([]string{"--workbench", t.TempDir()}, stdin, &stdout, &stderr) }()
				select {
				case code := <-done:
					if code != 1 || stdout.Len() != 0 || stderr.String() != want {
						t.Errorf("stdin %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", stdin.Name(), code, stdout.String(), stderr.String(), want)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("stdin %s: still waiting after 10 s", stdin.Name())
				}
				if strings.Count(stderr.String(), "\n") > 1 {
					t.Errorf("more than one stderr line: %q", stderr.String())
				}
			}
		})
	}
}
