package transcript

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Verify checks the red line a rewritten transcript must hold, and returns
// what breaks it (nil when nothing does):
//   - every line is an entry Parse accepts;
//   - every tool_use has a tool_result and every tool_result a tool_use;
//   - every parentUuid, logicalParentUuid and leafUuid names an entry that
//     exists;
//   - the conversation rebuilt from the newest leaf (the last main-thread
//     entry no other entry names as parent) reaches a root without a gap or
//     a cycle;
//   - no other chain of parentUuid loops either: a rewrite that removes the
//     newest leaf makes another entry the newest, and its chain is what a
//     resume walks then.
//
// It holds the ids of the whole transcript in memory: it is meant for tests
// and checks, not for the streaming path.
func Verify(r io.Reader) []string {
	var problems []string
	add := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	parent := map[string]string{}
	type ref struct {
		line       int
		field, val string
	}
	var refs []ref
	uses, results := map[string]int{}, map[string]int{}
	var order []string // main-thread conversation uuids in file order
	var all []string   // every conversation uuid in file order
	err := Scan(r, func(n int, e *Entry, err error) error {
		if err != nil {
			add("%v", err)
			return nil
		}
		// The entry's strings are views of the line: what is kept is cloned.
		if e.UUID != "" {
			if _, dup := parent[e.UUID]; dup {
				add("line %d: uuid %s appears twice", n, e.UUID)
			}
			parent[strings.Clone(e.UUID)] = strings.Clone(e.ParentUUID)
			all = append(all, strings.Clone(e.UUID))
			if !e.IsSidechain {
				order = append(order, strings.Clone(e.UUID))
			}
		}
		for field, val := range map[string]string{"parentUuid": e.ParentUUID, "logicalParentUuid": e.LogicalParentUUID, "leafUuid": e.LeafUUID} {
			if val != "" {
				refs = append(refs, ref{n, field, strings.Clone(val)})
			}
		}
		for _, b := range e.ToolUses() {
			uses[strings.Clone(b.ID)]++
		}
		for _, b := range e.ToolResults() {
			results[strings.Clone(b.ToolUseID)]++
		}
		return nil
	})
	if err != nil {
		add("%v", err)
	}
	for _, rf := range refs {
		if _, ok := parent[rf.val]; !ok {
			add("line %d: %s %s names no entry", rf.line, rf.field, rf.val)
		}
	}
	for _, id := range sortedKeys(uses) {
		if results[id] == 0 {
			add("tool_use %s has no tool_result", id)
		}
		if uses[id] > 1 {
			add("tool_use %s appears %d times", id, uses[id])
		}
	}
	for _, id := range sortedKeys(results) {
		if uses[id] == 0 {
			add("tool_result %s answers no tool_use", id)
		}
	}
	seen := map[string]bool{}
	if leaf := newestLeaf(order, parent); leaf != "" {
		for u := leaf; u != ""; u = parent[u] {
			if seen[u] {
				add("the chain from the newest leaf %s loops at %s", leaf, u)
				break
			}
			seen[u] = true
			if _, ok := parent[u]; !ok {
				add("the chain from the newest leaf %s breaks at %s", leaf, u)
				break
			}
		}
	}
	for _, at := range loops(all, parent) {
		if !seen[at] { // a loop the newest leaf's chain reaches is said above
			add("the chain of parentUuid loops at %s", at)
		}
	}
	return problems
}

// loops returns, for each cycle of parent links among the entries, the
// first entry of it a walk up from the uuids of order meets.
func loops(order []string, parent map[string]string) []string {
	const onWalk, done = 1, 2
	state := map[string]uint8{}
	var at []string
	for _, start := range order {
		var walk []string
		u := start
		for state[u] == 0 {
			if _, ok := parent[u]; !ok {
				break // a root's "" or a gap: no loop this way
			}
			state[u] = onWalk
			walk = append(walk, u)
			u = parent[u]
		}
		if state[u] == onWalk {
			at = append(at, u)
		}
		for _, w := range walk {
			state[w] = done
		}
	}
	return at
}

// newestLeaf is the last uuid of order that no entry names as its parent.
func newestLeaf(order []string, parent map[string]string) string {
	isParent := map[string]bool{}
	for _, p := range parent {
		isParent[p] = true
	}
	for i := len(order) - 1; i >= 0; i-- {
		if !isParent[order[i]] {
			return order[i]
		}
	}
	return ""
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
