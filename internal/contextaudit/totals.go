package contextaudit

import (
	"fmt"
	"path/filepath"
	"strings"
)

// totals sums the reports of one run's sessions, every entry counted once:
// a fork holds copies of its original's entries (prune-session keeps their
// uuids, Claude Code's own forks name the original's in
// forkedFrom.messageUuid), and a subagent transcript named alone and with
// its session is the same transcript.
type totals struct {
	r        *Report
	seen     map[string]bool // keys of the entries counted (entryKey)
	files    map[string]bool // subagent transcripts counted, by absolute path
	sessions int64
	forks    int64
}

func newTotals() *totals {
	return &totals{r: newReport(""), seen: map[string]bool{}, files: map[string]bool{}}
}

// fresh reports whether the entry of key is counted for the first time:
// not before this session, nor before in local, the keys it has read,
// which key joins. Bookkeeping lines have no key and always count.
func (t *totals) fresh(key string, local map[string]bool) bool {
	if key == "" {
		return true
	}
	if t.seen[key] || local[key] {
		return false
	}
	local[strings.Clone(key)] = true // a view of the line
	return true
}

// add adds a session: the counts of its entries from part, the rest from
// r. A fork's subagent transcripts, compaction runs and warmups are its
// original's, copied: a fork adds none of them.
func (t *totals) add(r, part *Report) {
	s := t.r
	t.sessions++
	addCounts(s, part)
	s.BadLines += r.BadLines // the reader counts them in r alone
	for name, sc := range part.scripts {
		to := s.scripts[name]
		if to == nil {
			to = &script{names: map[string]bool{}}
			s.scripts[name] = to
		}
		to.writes += sc.writes
		to.runs += sc.runs
		for n := range sc.names {
			if len(to.names) < maxNames {
				to.names[n] = true
			}
		}
	}
	for f, chars := range part.spilled {
		s.spilled[f] = chars
	}
	if r.ForkedFrom != nil {
		t.forks++
		return
	}
	s.inlineRuns += r.inlineRuns
	for _, f := range r.files {
		key := f.path
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if !t.files[key] {
			t.files[key] = true
			s.files = append(s.files, f)
		}
	}
	if w := r.WhatIf; w != nil {
		if s.WhatIf == nil {
			s.WhatIf = &WhatIf{}
			s.WhatIf.Assumed.CharsPerToken = w.Assumed.CharsPerToken
		}
		a := s.WhatIf.Assumed // the totals assume nothing else: no sum
		addCounts(s.WhatIf, w)
		s.WhatIf.Assumed = a
	}
}

// report is the totals as a report: no context, window or turns of each
// compaction, which do not add up.
func (t *totals) report() *Report {
	r := t.r
	r.finish(0, 0)
	r.totals = t
	r.Session = "totals"
	r.Path = ""
	r.Window = Window{}
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
	return fmt.Sprintf("totals of %s (%d subagent transcripts%s)\n", plural(t.sessions, "session"), t.r.SubagentTranscripts, forks)
}
