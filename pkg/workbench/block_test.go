package workbench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlockLen(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{{"", 0}, {"abc", 3}, {"é—", 2}, {"😀", 2}, {"a😀b", 4}} {
		if got := BlockLen(tc.s); got != tc.want {
			t.Errorf("BlockLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestBlock(t *testing.T) {
	root := t.TempDir()
	put(t, root, "scripts/count.sh", "# Count lines per file\n", 2)
	put(t, root, "artifacts/report.md", "# Survey\n", 1)
	ix := scan(t, root, DefaultMaxEntries)
	index := "; " + dataNote + "):\n```\n- scripts/count.sh (23 B): Count lines per file\n- artifacts/report.md (9 B): Survey\n```\n2 of 2 files listed; none left out.\n"
	for _, who := range []Audience{Coordinator, Worker} {
		b, _, err := Block(root, false, ix, who)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b, "Workbench: "+root+" (") || !strings.HasSuffix(b, index) {
			t.Errorf("audience %d: block does not start with the workbench or end with the index:\n%s", who, b)
		}
		for _, rule := range []string{"1. ", "2. ", "3. ", "scripts/", "artifacts/", "first comment"} {
			if !strings.Contains(b, rule) {
				t.Errorf("audience %d: block lacks %q", who, rule)
			}
		}
	}
	c, _, _ := Block(root, false, ix, Coordinator)
	w, _, _ := Block(root, false, ix, Worker)
	if c == w || !strings.Contains(w, "Rules for your work") || !strings.Contains(c, "a task brief need not repeat them") {
		t.Errorf("the worker's block is not framed for a worker:\n%s\n---\n%s", c, w)
	}
}

// TestBlockCap fills the index with scripts whose descriptions and paths
// are as long as they get and checks the block stays under the cap and
// says how many entries it left out.
func TestBlockCap(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("😀 wide description ", 40) // non-BMP runes count twice
	for i := range 500 {
		put(t, root, fmt.Sprintf("scripts/%s-%03d.sh", strings.Repeat("p", 150), i), "# "+long+"\n", i)
	}
	for _, limit := range []int{DefaultMaxEntries, 500} {
		ix := scan(t, root, limit)
		for _, who := range []Audience{Coordinator, Worker} {
			b, _, err := Block(root, false, ix, who)
			if err != nil {
				t.Fatal(err)
			}
			n := BlockLen(b)
			if n >= PromptCap {
				t.Errorf("limit %d: block is %d characters, cap %d", limit, n, PromptCap)
			}
			listed := strings.Count(b, "\n- scripts/")
			trailer := fmt.Sprintf("%d of 500 files listed; %d left out (%d in scripts/, 0 in artifacts/)", listed, 500-listed, 500-listed)
			if listed == 0 || listed >= min(limit, 500) || !strings.Contains(b, trailer) {
				t.Errorf("limit %d: %d entries listed, want some trimmed and counted in %q:\n%s", limit, listed, trailer, b[len(b)-300:])
			}
			if PromptCap-n > 2*BlockLen(ix.Entries[0].line()) {
				t.Errorf("limit %d: block is %d characters: trimmed more than needed", limit, n)
			}
		}
	}
}

func TestBlockRootTooLong(t *testing.T) {
	root := "/" + strings.Repeat("x", PromptCap)
	if _, _, err := Block(root, false, &Index{}, Coordinator); err == nil {
		t.Error("a block with a 10,000-character root did not fail")
	}
}

func TestUpdate(t *testing.T) {
	e := func(path string, size int64, desc string) Entry {
		return Entry{Path: path, Size: size, Description: desc}
	}
	ix := &Index{Entries: []Entry{e("scripts/new.sh", 10, "New"), e("scripts/same.sh", 5, "Same"), e("scripts/edited.sh", 9, "Now")}, Scripts: 3}
	_, all, _ := Block("/wb", false, ix, Coordinator)
	for _, tc := range []struct {
		name string
		prev Shown
		want string
	}{
		{"nothing changed", all, ""},
		{"from an empty index", EmptyShown(), updateHead + "```\n+ scripts/new.sh (10 B): New\n+ scripts/same.sh (5 B): Same\n+ scripts/edited.sh (9 B): Now\n```\n3 of 3 files listed; none left out.\n"},
		{"added, changed, gone", Shown{
			Entries: []ShownEntry{{"scripts/gone.sh", "scripts/gone.sh (1 B)\n"}, {"scripts/same.sh", "scripts/same.sh (5 B): Same\n"}, {"scripts/edited.sh", "scripts/edited.sh (3 B): Then\n"}},
			Trailer: "3 of 3 files listed; none left out.\n",
		}, updateHead + "```\n+ scripts/new.sh (10 B): New\n~ scripts/edited.sh (9 B): Now\n- scripts/gone.sh\n```\n3 of 3 files listed; none left out.\n"},
		{"only the count", Shown{Entries: all.Entries, Trailer: "3 of 4 files listed; 1 left out (1 in scripts/, 0 in artifacts/): list the folders to see them.\n"},
			updateHead + "3 of 3 files listed; none left out.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Update(tc.prev, all)); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
		})
	}
}
