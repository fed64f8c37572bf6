package spillguard

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/spill"
)

// Estimated is one field spill-guard would spill: the characters it held
// and the pointer and head that would stand in its place.
type Estimated struct {
	Chars int64
	Text  string
}

// Estimate says what spill-guard, run with threshold and head, would do to
// a tool's result, writing nothing: the fields it would spill, in document
// order, found and judged as the hook finds and judges them. resp is the
// tool_response as a transcript keeps it (toolUseResult), root the
// workbench root the pointer would name; a cut Bash output
// (persistedOutputPath) is priced by what the transcript holds of it.
// context-audit --what-if asks it about sessions recorded without layer
// three.
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
