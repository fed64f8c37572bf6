package spillguard

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDropPersisted(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"as the CLI sends it",
			`{"stdout":"p","stderr":"","interrupted":false,"persistedOutputPath":"/c/b1.txt","persistedOutputSize":108894}`,
			`{"stdout":"p","stderr":"","interrupted":false}`},
		{"first and spaced",
			`{ "persistedOutputSize" : 1 , "persistedOutputPath" : "/c" , "stdout" : "p" }`,
			`{ "stdout" : "p" }`},
		{"absent", `{"stdout":"p","stderr":""}`, `{"stdout":"p","stderr":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dropPersisted([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBadBodyLeavesNothing: a tool result over a megabyte with a bad byte
// anywhere is refused as any bad payload is, and nothing is spilled.
func TestBadBodyLeavesNothing(t *testing.T) {
	good := strings.Repeat(`a line of output\n`, 100_000)
	for _, tc := range []struct {
		name, body, wantErr string
	}{
		{"bad escape at the end", good + `\q`, "spill-guard: stdin is not valid JSON ("},
		{"control byte in the middle", good[:1<<20] + "\x07" + good[1<<20:], "spill-guard: stdin is not valid JSON ("},
		{"bad UTF-8 at the start", "\xc3(" + good, "spill-guard: stdin is not valid UTF-8\n"},
		{"good", good, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wb := t.TempDir()
			stdin := `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_1","cwd":"/",` +
				`"tool_input":{"command":"./build"},"tool_response":{"stdout":"` + tc.body + `","stderr":""}}`
			var stdout, stderr bytes.Buffer
			code := Main([]string{"--workbench", wb}, strings.NewReader(stdin), &stdout, &stderr)
			files, _ := filepath.Glob(filepath.Join(wb, "spill", "*.txt"))
			temps, _ := filepath.Glob(filepath.Join(wb, "spill", ".tmp", "*"))
			files = append(files, temps...)
			if tc.wantErr == "" {
				if code != 0 || stdout.Len() == 0 || len(files) != 1 {
					t.Fatalf("exit %d, %d bytes out, files %q, stderr %q; want a spill", code, stdout.Len(), files, stderr.String())
				}
				return
			}
			if code != 1 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), tc.wantErr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stdout %d bytes, stderr %q; want exit 1, nothing, one line starting %q", code, stdout.Len(), stderr.String(), tc.wantErr)
			}
			if len(files) != 0 {
				t.Errorf("left in spill/: %q", files)
			}
		})
	}
}

// TestBadBodyMakesNoFolder: spill-guard does not create the workbench or
// its spill folder for a payload it rejects.
func TestBadBodyMakesNoFolder(t *testing.T) {
	good := strings.Repeat(`a line of output\n`, 100_000)
	for _, tc := range []struct{ name, body string }{
		{"bad escape at the end", good + `\q`},
		{"bad UTF-8 in the middle", good[:1<<20] + "\xff" + good[1<<20:]},
		{"bad escape, short body", strings.Repeat("x", 5000) + `\q`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wb := filepath.Join(t.TempDir(), "workbench")
			stdin := `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_1","cwd":"/",` +
				`"tool_input":{"command":"./build"},"tool_response":{"stdout":"` + tc.body + `","stderr":""}}`
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"--workbench", wb}, strings.NewReader(stdin), &stdout, &stderr); code != 1 || stdout.Len() != 0 {
				t.Fatalf("exit %d, stdout %d bytes, stderr %q; want exit 1 and nothing", code, stdout.Len(), stderr.String())
			}
			if _, err := os.Lstat(wb); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the workbench %s: %v; want it not made", wb, err)
			}
		})
	}
}
