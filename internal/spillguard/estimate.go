package spillguard

import (
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/spill"
)

// Estimated is one field spill-guard would spill: the characters it held
// and the pointer and head that would stand in its place.
type Estimated struct {
	Chars int64
	Text  string
}

// Estimate says what spill-guard, run with threshold and head, would have
// done to a tool's result, without reading or writing a file: the fields it
// would spill, in document order. resp is the tool_response as a transcript
// keeps it (toolUseResult), root the workbench root the pointer would name.
// context-audit --what-if asks it about sessions recorded without layer
// three. The same rules as the hook decide (edit tools, non-text Reads,
// images and results of the wrong type pass), and the same walk finds the
// fields; a Bash output that Claude Code cut and saved (persistedOutputPath)
// is priced by what the transcript holds of it. The pointer names the spill
// file by its hint unsanitized: sanitizing replaces bytes one for one, so
// the length, which is all a caller can use, is the same.
func Estimate(tool, toolUseID, resp, root string, threshold, head int) ([]Estimated, error) {
	kind := gjson.Parse(resp)
	if objectTools[tool] && !kind.IsObject() || keptWhole(tool, resp, kind) != "" {
		return nil, nil
	}
	fields, err := longFields(resp, threshold)
	if err != nil {
		return nil, err
	}
	var out []Estimated
	for _, f := range fields {
		if !over(f.raw, threshold) {
			continue
		}
		text := gjson.Parse(f.raw).Str
		runes := []rune(text)
		file := spill.File{
			Path:  filepath.Join(spill.Dir(root), hint(tool, toolUseID, f.keys)+".txt"),
			Chars: int64(len(runes)),
			Lines: int64(strings.Count(text, "\n")),
			Head:  string(runes[:min(head, len(runes))]),
		}
		if !strings.HasSuffix(text, "\n") {
			file.Lines++
		}
		out = append(out, Estimated{Chars: file.Chars, Text: file.Text()})
	}
	return out, nil
}
