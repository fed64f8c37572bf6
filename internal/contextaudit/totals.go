package contextaudit

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/transcript"
)

// totals sums the sessions of one run as one more session, every entry
// counted once: a fork holds copies of its original's entries (prune-session
// keeps their uuids, Claude Code's own forks name the original's in
// forkedFrom.messageUuid), and a subagent transcript copied with a fork is
// the same transcript.
type totals struct {
	s        *session
	seen     map[string]bool // uuids of the entries counted
	files    map[string]bool // subagent transcripts counted (subFile), by absolute path
	sessions int64
	forks    int64
	// whatIf sums the estimates of the sessions that are no forks.
	whatIf *WhatIf
}

func newTotals(o Options) *totals {
	t := &totals{s: newSession("", o.Workbench), seen: map[string]bool{}, files: map[string]bool{}}
	t.s.more = newFigures(t.s, Options{Workbench: o.Workbench})
	return t
}

// fresh reports whether e is counted in the totals: the first time its
// entry is seen. Lines without a uuid (bookkeeping) always pass: the
// readers look at them only for the cwd.
func (t *totals) fresh(e *transcript.Entry) bool {
	key := e.UUID
	if bytes.Contains(e.Raw, []byte(`"forkedFrom"`)) {
		if m := gjson.GetBytes(e.Raw, "forkedFrom.messageUuid"); m.Type == gjson.String && m.Str != "" {
			key = m.Str
		}
	}
	if key == "" {
		return true
	}
	if t.seen[key] {
		return false
	}
	t.seen[strings.Clone(key)] = true
	return true
}

// add counts a session read.
func (t *totals) add(s *session) {
	if t == nil {
		return
	}
	t.sessions++
	t.s.r.BadLines += s.r.BadLines
	if s.r.ForkedFrom != nil {
		t.forks++
		return
	}
	// A fork's subagent transcripts are its original's, copied; so are
	// its compaction runs and warmups. The compactions themselves are
	// counted as the totals read them, each once; so is each transcript,
	// which a run may name alone and with its session.
	t.s.r.SubagentTranscripts += s.inlineRuns
	c := &t.s.r.Compactions
	for _, f := range s.files {
		key := f.path
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if t.files[key] {
			continue
		}
		t.files[key] = true
		switch {
		case f.run:
			c.Runs++
			c.RunInputTokens += f.tokensIn
			c.RunOutputTokens += f.tokensOut
		case f.warmup:
			t.s.r.Warmups++
		default:
			t.s.r.SubagentTranscripts++
		}
	}
	if w := s.r.WhatIf; w != nil {
		t.addWhatIf(w)
	}
}

// report is the totals as a report.
func (t *totals) report() *Report {
	t.s.finish()
	t.s.more.finish()
	r := t.s.r
	r.totals = t
	r.Session = "totals"
	r.Path = ""
	r.Context.First, r.Context.Last, r.Context.GrowthPerTurn = 0, 0, nil
	r.Window = Window{}
	r.Compactions.AfterTurns = []int64{} // turns of several sessions: no place in one count
	r.WhatIf = t.whatIf
	return r
}

func (t *totals) header() string {
	forks := ""
	switch t.forks {
	case 0:
	case 1:
		forks = ", 1 a fork: what it copied counted once"
	default:
		forks = fmt.Sprintf(", %d forks: what they copied counted once", t.forks)
	}
	return fmt.Sprintf("totals of %s (%d subagent transcripts%s)\n", plural(t.sessions, "session"), t.s.r.SubagentTranscripts, forks)
}
