package prunesession

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchTranscript is about size bytes of a session in the shapes the bench
// (tools/bench/cases_prune.go) writes: Bash calls, half of them glances,
// one in six denied, each result beside its toolUseResult, with api-request
// lines between.
func benchTranscript(size int) []byte {
	const sid = "0b0b0b0b-1111-4111-8111-111111111111"
	commands := []string{"git status", "ls -la", "cat README.md", "make test", "go build ./...", "rm -rf build"}
	filler := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 100)
	var b bytes.Buffer
	n, parent := 0, "null"
	entry := func(body string) {
		n++
		uuid := fmt.Sprintf("%08d-0000-4000-8000-000000000000", n)
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,%s,"uuid":%q,"timestamp":"2026-11-30T02:44:58.423Z","cwd":"/home/u/ws","sessionId":%q,"version":"2.1.328"}`+"\n", parent, body, uuid, sid)
		parent = fmt.Sprintf("%q", uuid)
	}
	for turn := 0; b.Len() < size; turn++ {
		fmt.Fprintf(&b, `{"type":"api-request","sessionId":%q,"id":"req-%d","tail":%q}`+"\n", sid, turn, filler[:1500])
		msg := fmt.Sprintf(`"message":{"id":"msg_%d","role":"assistant","content":[%%s],"usage":{"input_tokens":10,"output_tokens":200}},"type":"assistant"`, turn)
		entry(fmt.Sprintf(msg, fmt.Sprintf(`{"type":"text","text":%q}`, filler[:200+turn%400])))
		cmd := commands[turn%len(commands)]
		id := fmt.Sprintf("toolu_%08d", turn)
		entry(fmt.Sprintf(msg, fmt.Sprintf(`{"type":"tool_use","id":%q,"name":"Bash","input":{"command":%q}}`, id, cmd)))
		if strings.HasPrefix(cmd, "rm") {
			entry(fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"denied","is_error":true,"tool_use_id":%q}]},"toolUseResult":"Error: denied","toolDenialKind":"permission-rule"`, id))
			continue
		}
		out := filler[:100+(turn*7919)%3000]
		entry(fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%q,"is_error":false}]},"toolUseResult":{"stdout":%q,"stderr":"","interrupted":false}`, id, out, out))
	}
	return b.Bytes()
}

const benchTranscriptBytes = 16 << 20

var benchOptions = options{keepRecent: DefaultKeepRecent, keepDenials: DefaultKeepDenials}

// BenchmarkPlan is pass one.
func BenchmarkPlan(b *testing.B) {
	data := benchTranscript(benchTranscriptBytes)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := readPlan(bytes.NewReader(data), benchOptions); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRewrite is pass two, into io.Discard.
func BenchmarkRewrite(b *testing.B) {
	data := benchTranscript(benchTranscriptBytes)
	p, err := readPlan(bytes.NewReader(data), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	if p.expired == 0 || p.removed == 0 {
		b.Fatalf("nothing to prune: %d expired, %d removed", p.expired, p.removed)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rw := &rewriter{p: p, oldID: "0b0b0b0b-1111-4111-8111-111111111111", newID: "22222222-2222-4222-8222-222222222222"}
		if err := rw.rewrite(bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
