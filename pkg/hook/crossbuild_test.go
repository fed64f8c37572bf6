package hook

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsOn32BitLinux: MaxPayload is a constant used as an int, which
// must fit the int of every Linux target; a 4 GiB constant once made the
// package fail to compile for linux/386 and linux/arm.
func TestBuildsOn32BitLinux(t *testing.T) {
	for _, arch := range []string{"386", "arm"} {
		cmd := exec.Command("go", "build", ".")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOARCH=%s go build: %v\n%s", arch, err, out)
		}
	}
}
