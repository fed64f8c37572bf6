package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// benchTranscript is about size bytes of transcript in the shapes Claude
// Code writes, weighted as a long session is: most bytes are tool output
// (Bash results up to the 30,000 characters Claude Code keeps, twice: in
// message.content and in toolUseResult), with text, tool_use, api-request
// and attachment lines between. Outputs hold newlines and quotes, so the
// strings carry escapes, as real ones do.
func benchTranscript(size int) []byte {
	var b bytes.Buffer
	out := strings.Repeat("ok  \tgithub.com/x/y/pkg\t0.042s\n--- \"quoted\" line of output ✓\n", 600)
	parent := "null"
	for n := 0; b.Len() < size; n++ {
		uuid := fmt.Sprintf("%08d-0000-4000-8000-000000000000", n)
		id := "toolu_" + strconv.Itoa(n)
		head := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"uuid":%q,"timestamp":"2026-11-30T02:44:58.423Z","cwd":"/home/u/ws","sessionId":"0b0b0b0b-1111-4111-8111-111111111111","version":"2.1.328",`, parent, uuid)
		usage := `"usage":{"input_tokens":10,"cache_creation_input_tokens":500,"cache_read_input_tokens":90000,"output_tokens":200}`
		switch n % 4 {
		case 0:
			fmt.Fprintf(&b, `%s"type":"assistant","message":{"id":"msg_%d","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":%s}],%s}}`+"\n", head, n, jsonString(out[:300]), usage)
		case 1:
			fmt.Fprintf(&b, `%s"type":"assistant","message":{"id":"msg_%d","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"go test ./...","description":"test"}}],%s}}`+"\n", head, n, id, usage)
		case 2:
			body := jsonString(out[:runeStart(out, (n*7919)%len(out))])
			fmt.Fprintf(&b, `%s"type":"user","message":{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":%s,"is_error":false}]},"toolUseResult":{"stdout":%s,"stderr":"","interrupted":false}}`+"\n", head, "toolu_"+strconv.Itoa(n-1), body, body)
		case 3:
			fmt.Fprintf(&b, `{"type":"api-request","sessionId":"0b0b0b0b-1111-4111-8111-111111111111","id":"req-%d","params":{"model":"claude-opus-5-5"},"tail":%s}`+"\n", n, jsonString(out[:1500]))
		}
		parent = strconv.Quote(uuid)
	}
	return b.Bytes()
}

const benchTranscriptBytes = 16 << 20

// BenchmarkParse parses every line of a transcript on one goroutine.
func BenchmarkParse(b *testing.B) {
	data := benchTranscript(benchTranscriptBytes)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		for _, l := range lines {
			if _, err := Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScan reads and parses a transcript as the commands do, on
// GOMAXPROCS CPUs (go test -cpu 1,2 compares).
func BenchmarkScan(b *testing.B) {
	data := benchTranscript(benchTranscriptBytes)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		err := Scan(bytes.NewReader(data), func(_ int, _ *Entry, err error) error { return err })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReader reads the lines without parsing them: the floor under
// Scan.
func BenchmarkReader(b *testing.B) {
	data := benchTranscript(benchTranscriptBytes)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		rd := NewReader(bytes.NewReader(data))
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// jsonString is s as a JSON string (Go's %q escapes differ from JSON's).
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
