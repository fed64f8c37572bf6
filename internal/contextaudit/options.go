package contextaudit

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/tidwall/sjson"
)

// optionFlags defines the flags of the window and the what-if on fs, and
// returns what reads them once fs is parsed.
func optionFlags(fs *flag.FlagSet) func() (Options, error) {
	window := fs.Int64("window", DefaultWindow, "the model's context window in `tokens` (1000000 for a 1M model)")
	whatIf := fs.Bool("what-if", false, "estimate what the main thread would have held with every layer of flower")
	cpt := fs.Float64("chars-per-token", DefaultCharsPerToken, "with --what-if: characters a token holds")
	delegation := fs.Int64("delegation-chars", 0, "with --what-if: what one delegation costs the main thread, in `characters` (default: the mean of the session's own, else "+fmt.Sprint(DefaultDelegation)+")")
	return func() (Options, error) {
		o := Options{Window: *window}
		switch {
		case *window < 1:
			return o, fmt.Errorf("--window must be at least 1 token, got %d", *window)
		case !(*cpt > 0 && *cpt < 100):
			return o, fmt.Errorf("--chars-per-token must be over 0 and under 100, got %g", *cpt)
		case *delegation < 0:
			return o, fmt.Errorf("--delegation-chars must be 0 or more, got %d", *delegation)
		}
		if *whatIf {
			o.WhatIf = &WhatIfOptions{Window: *window, CharsPerToken: *cpt, Delegation: *delegation}
		}
		return o, nil
	}
}

// writeTotals prints the totals of several sessions: a table after theirs,
// or one more JSON line, {"totals":{…}}, with the keys of a session's
// report that add up, and sessions and forks.
func writeTotals(w io.Writer, r *Report, asJSON bool) error {
	if !asJSON {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		return writeTable(w, r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	for _, key := range []string{"session", "path", "forked_from", "subagent_of", "context", "window", "compactions.after_turns"} {
		if b, err = sjson.DeleteBytes(b, key); err != nil {
			return err
		}
	}
	// The counts first, then the report's keys as it orders them.
	head := fmt.Sprintf(`{"totals":{"sessions":%d,"forks":%d,`, r.totals.sessions, r.totals.forks)
	_, err = fmt.Fprintf(w, "%s%s}\n", head, b[1:])
	return err
}
