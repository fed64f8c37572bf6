package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Request is one parsed POST /v1/messages body, as the model would see it.
type Request struct {
	Raw      []byte // the body as sent
	Thread   string // MainThread, SideThread or the subagent's prompt
	Model    string
	Stream   bool
	System   string   // the system prompt's text blocks, joined by "\n"
	Tools    []string // the offered tools' names
	Messages []Message

	toolChars int // the tool definitions' JSON, in characters
}

// Message is one message of a request.
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block. A string content is one text block.
type Block struct {
	Type string // text, tool_use, tool_result, image, …
	// Text is a text block's text, or a tool_result's text blocks joined by "\n".
	Text      string
	ID, Name  string          // tool_use
	Input     json.RawMessage // tool_use
	ToolUseID string          // tool_result
	IsError   bool            // tool_result
	Raw       json.RawMessage
}

// ParseRequest parses a Messages API request body.
func ParseRequest(body []byte) (*Request, error) {
	var raw struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Tools    json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("request body is not a Messages request: %v", err)
	}
	r := &Request{Raw: body, Model: raw.Model, Stream: raw.Stream}
	sys, err := parseContent(raw.System)
	if err != nil {
		return nil, fmt.Errorf("system: %v", err)
	}
	r.System = joinText(sys)
	var tools []struct{ Name string }
	if len(raw.Tools) > 0 {
		if err := json.Unmarshal(raw.Tools, &tools); err != nil {
			return nil, fmt.Errorf("tools: %v", err)
		}
	}
	for _, t := range tools {
		r.Tools = append(r.Tools, t.Name)
	}
	r.toolChars = utf8.RuneCount(raw.Tools)
	for i, m := range raw.Messages {
		blocks, err := parseContent(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages.%d.content: %v", i, err)
		}
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: blocks})
	}
	return r, nil
}

// parseContent reads a content field: absent, a string, or an array of blocks.
func parseContent(raw json.RawMessage) ([]Block, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{{Type: "text", Text: s, Raw: raw}}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	var out []Block
	for _, item := range items {
		var b struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(item, &b); err != nil {
			return nil, err
		}
		blk := Block{Type: b.Type, Text: b.Text, ID: b.ID, Name: b.Name, Input: b.Input, ToolUseID: b.ToolUseID, IsError: b.IsError, Raw: item}
		if b.Type == "tool_result" {
			inner, err := parseContent(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result %s: %v", b.ToolUseID, err)
			}
			blk.Text = joinText(inner)
		}
		out = append(out, blk)
	}
	return out, nil
}

func joinText(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// check rejects what the real API rejects about tool calls: every tool_use
// of an assistant message needs its tool_result in the very next message,
// and every tool_result needs its tool_use in the message before. The
// messages are the API's own wording.
func (r *Request) check() error {
	if len(r.Messages) == 0 {
		return fmt.Errorf("messages: at least one message is required")
	}
	for i, m := range r.Messages {
		if m.Role == "assistant" {
			var missing []string
			for _, id := range m.toolUseIDs() {
				if i+1 >= len(r.Messages) || r.Messages[i+1].Role != "user" || !r.Messages[i+1].hasResult(id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
					"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
			}
		}
		for j, b := range m.Content {
			if b.Type != "tool_result" {
				continue
			}
			if i == 0 || r.Messages[i-1].Role != "assistant" || !r.Messages[i-1].hasUse(b.ToolUseID) {
				return fmt.Errorf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
					"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
		}
	}
	return nil
}

func (m Message) toolUseIDs() []string {
	var ids []string
	for _, b := range m.Content {
		if b.Type == "tool_use" {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

func (m Message) hasUse(id string) bool {
	for _, b := range m.Content {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

func (m Message) hasResult(id string) bool {
	for _, b := range m.Content {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return true
		}
	}
	return false
}

// Text is the message's text blocks joined by "\n".
func (m Message) Text() string { return joinText(m.Content) }

// Step is the number of assistant messages in the request: how many answers
// of its thread came before.
func (r *Request) Step() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// firstUser is the first message with role user, which opens a thread.
func (r *Request) firstUser() (Message, bool) {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m, true
		}
	}
	return Message{}, false
}

// FirstPrompt is the last text block of the first user message: the prompt
// that opened the thread (the main prompt or the Agent call's prompt). The CLI
// puts its system reminders (hook context, CLAUDE.md) in text blocks before it.
func (r *Request) FirstPrompt() string {
	m, ok := r.firstUser()
	if !ok {
		return ""
	}
	for i := len(m.Content) - 1; i >= 0; i-- {
		if m.Content[i].Type == "text" {
			return m.Content[i].Text
		}
	}
	return ""
}

// FirstUserText is all text of the first user message: the prompt and the
// reminders the CLI put beside it (for example a SubagentStart hook's
// additionalContext).
func (r *Request) FirstUserText() string {
	m, _ := r.firstUser()
	return m.Text()
}

// LastUser is the request's last user message: the latest tool results or
// the newest prompt.
func (r *Request) LastUser() Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	return Message{}
}

// ToolResult finds the tool_result for tool call id in this request.
func (r *Request) ToolResult(id string) (Block, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		for _, b := range r.Messages[i].Content {
			if b.Type == "tool_result" && b.ToolUseID == id {
				return b, true
			}
		}
	}
	return Block{}, false
}

// ToolUses is every tool_use of the request, in order.
func (r *Request) ToolUses() []Block { return r.blocks("tool_use") }

// ToolResults is every tool_result of the request, in order.
func (r *Request) ToolResults() []Block { return r.blocks("tool_result") }

// blocks is every content block of the given type, in order.
func (r *Request) blocks(kind string) []Block {
	var out []Block
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Type == kind {
				out = append(out, b)
			}
		}
	}
	return out
}

// ContextChars is the size of the conversation the model is sent, in
// characters: every text, tool call (name and input JSON) and tool result
// text of the messages. The system prompt and tool definitions are left out:
// they are the same with or without flower's layers.
func (r *Request) ContextChars() int {
	n := 0
	for _, m := range r.Messages {
		for _, b := range m.Content {
			n += b.Chars()
		}
	}
	return n
}

// RequestChars is the size of the whole request, in characters: the system
// prompt's text, the tool definitions' JSON and the messages (ContextChars).
// The fake's usage reports it in tokens, as the real API's usage counts the
// whole request.
func (r *Request) RequestChars() int {
	return utf8.RuneCountInString(r.System) + r.toolChars + r.ContextChars()
}

// Chars is the block's size as ContextChars counts it.
func (b Block) Chars() int {
	switch b.Type {
	case "tool_use":
		return utf8.RuneCountInString(b.Name) + utf8.RuneCount(b.Input)
	default:
		return utf8.RuneCountInString(b.Text)
	}
}
