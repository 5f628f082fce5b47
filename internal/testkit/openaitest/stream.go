package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxPieceRunes is the longest piece, in runes, that splitText makes of a
// run of text without spaces, so that JSON arguments and Chinese text are
// streamed in several pieces as a model's tokens are.
const maxPieceRunes = 8

// writeStream sends chunks as server-sent events, one "data: {json}" event
// each, then "data: [DONE]", as OpenAI streams a chat completion. It flushes
// after every event so the client sees each one as it is written, and waits
// delay before every chunk but the first. When the client goes away or the
// server closes first, it aborts the response, so that a client still
// reading sees a broken connection rather than a body that ends as if the
// stream were complete.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, chunks []map[string]any, delay time.Duration) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, chunk := range chunks {
		if i > 0 && !s.pause(r, delay) {
			panic(http.ErrAbortHandler)
		}
		data, err := json.Marshal(chunk)
		if err != nil || !writeEvent(w, rc, data) {
			panic(http.ErrAbortHandler)
		}
	}
	writeEvent(w, rc, []byte("[DONE]"))
}

// writeEvent writes one server-sent event and flushes it; it reports false
// when the connection is gone.
func writeEvent(w io.Writer, rc *http.ResponseController, data []byte) bool {
	if _, err := io.WriteString(w, "data: "+string(data)+"\n\n"); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// streamChunks lays c out as the chunks of OpenAI's streaming protocol, in
// order:
//
//   - the first chunk's delta carries the role, with content "" (or null and
//     the first tool call's head when the answer only calls tools);
//   - one chunk per piece of content;
//   - for each tool call, a head fragment with its index, id, type, name and
//     empty arguments, then one fragment per piece of its arguments;
//   - a chunk with an empty delta and the finish reason;
//   - when includeUsage, a chunk with no choices and the usage, every
//     earlier chunk carrying "usage": null.
//
// Every chunk has the same id, created time and model.
func streamChunks(c completion, includeUsage bool) []map[string]any {
	var deltas []map[string]any
	first := map[string]any{"role": "assistant", "content": "", "refusal": nil}
	deltas = append(deltas, first)
	for _, p := range c.pieces {
		deltas = append(deltas, map[string]any{"content": p})
	}
	for i, call := range c.calls {
		head := map[string]any{
			"index":    i,
			"id":       call.ID,
			"type":     call.Type,
			"function": map[string]any{"name": call.Function.Name, "arguments": ""},
		}
		if i == 0 && c.content == "" {
			first["content"] = nil
			first["tool_calls"] = []map[string]any{head}
		} else {
			deltas = append(deltas, map[string]any{"tool_calls": []map[string]any{head}})
		}
		for _, p := range splitText(call.Function.Arguments) {
			deltas = append(deltas, map[string]any{"tool_calls": []map[string]any{{
				"index":    i,
				"function": map[string]any{"arguments": p},
			}}})
		}
	}

	chunk := func(choices []map[string]any) map[string]any {
		ch := map[string]any{
			"id":      c.id,
			"object":  "chat.completion.chunk",
			"created": c.created,
			"model":   c.model,
			"choices": choices,
		}
		if includeUsage {
			ch["usage"] = nil
		}
		return ch
	}
	choice := func(delta map[string]any, finish any) []map[string]any {
		return []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}
	}
	chunks := make([]map[string]any, 0, len(deltas)+2)
	for _, d := range deltas {
		chunks = append(chunks, chunk(choice(d, nil)))
	}
	chunks = append(chunks, chunk(choice(map[string]any{}, c.finish)))
	if includeUsage {
		last := chunk([]map[string]any{})
		last["usage"] = chatUsage()
		chunks = append(chunks, last)
	}
	return chunks
}

// splitText cuts s into the pieces a stream sends it in: words, each with the
// white space before it, and runs longer than maxPieceRunes cut into pieces
// of that many runes. The pieces join back into s, and none splits a rune.
func splitText(s string) []string {
	var out []string
	start, inWord := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && inWord {
			out = append(out, cutRunes(s[start:i], maxPieceRunes)...)
			start = i
		}
		inWord = !space
	}
	if start < len(s) {
		out = append(out, cutRunes(s[start:], maxPieceRunes)...)
	}
	return out
}

// cutRunes cuts s into pieces of at most n runes.
func cutRunes(s string, n int) []string {
	var out []string
	for utf8.RuneCountInString(s) > n {
		end := 0
		for range n {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return append(out, s)
}
