package spillguard

import (
	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
)

// captured handles a Bash result whose output the capture layer kept in a
// file (package capture): it returns the view of that file, and true. For
// anything else it returns false, and run goes on as before.
//
// The view follows the flags: a successful call's output up to --threshold
// characters is shown whole, past it a pointer and --head characters; a
// failed call's is shown as --head characters, the pointer, and a tail
// twice as long (at most --threshold less --head). --main-only does not
// apply: the output is already in the file, and the model would otherwise
// see only the marker. A call that reads a spill file back is shown whole,
// as spill-guard leaves such a result whole (readsSpill). shown is to be
// called once the view is printed: it removes a file the view showed whole.
func captured(p *hook.Payload, o options, wbFlag string) (out *hook.Output, shown func(), ok bool, err error) {
	m, ok := capture.Detect(p)
	if !ok {
		return nil, nil, false, nil
	}
	root, err := hook.WorkbenchRoot(wbFlag, p.Cwd())
	if err != nil {
		return nil, nil, true, err
	}
	dir := spill.Dir(root)
	out, shown, err = capture.View(p, m, dir, capture.Options{
		Threshold: o.threshold,
		Head:      o.head,
		Tail:      min(2*o.head, o.threshold-o.head),
		Whole:     readsSpill(p, o.glances(), "Bash", root, dir),
	})
	return out, shown, true, err
}
