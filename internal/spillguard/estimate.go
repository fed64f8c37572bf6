package spillguard

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/spill"
)

// Estimated is one field spill-guard would spill: its characters, and the
// pointer and head that would stand in its place.
type Estimated struct {
	Chars int64
	Text  string
}

// Estimate says, writing nothing, which fields of resp (a transcript's
// toolUseResult) spill-guard would spill, as the hook judges them, for
// context-audit --what-if; root is the workbench the pointer would name. A
// cut Bash output is priced by what the transcript holds of it.
func Estimate(tool, toolUseID, resp, root string, threshold, head int) ([]Estimated, error) {
	if objectTools[tool] && !strings.HasPrefix(resp, "{") || keptWhole(tool, resp) != "" {
		return nil, nil
	}
	var out []Estimated
	for _, f := range longFields(resp, threshold) {
		// The name unsanitized: sanitizing replaces bytes one for one, and
		// only the pointer's length counts.
		c := spill.NewCounter(io.Discard, head)
		writeText(c, f.raw)
		if file := c.File(filepath.Join(spill.Dir(root), hint(tool, toolUseID, f.keys)+".txt")); file.Chars > int64(threshold) {
			out = append(out, Estimated{Chars: file.Chars, Text: file.Text()})
		}
	}
	// A key given twice: the hook's payload check refuses it.
	if len(out) > 0 && strings.HasPrefix(resp, "{") {
		if err := jsoncheck.Check(resp, len(resp)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
