package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// hopHeaders are the headers of one connection, never passed on (RFC 9110,
// section 7.6.1), with the ones the gateway sets itself or keeps to itself.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
	"Host": true, "Content-Length": true,
	// The transport asks for and undoes compression itself, so that a
	// streamed answer can be read as it passes.
	"Accept-Encoding": true, "Content-Encoding": true,
}

// forwardHeaders copies the caller's headers for the upstream: all but
// the connection's own, Recall's (X-Tenant-ID, X-Recall-*), and
// Authorization, which is the upstream key or the caller's as configured.
func (g *Gateway) forwardHeaders(in http.Header) http.Header {
	out := make(http.Header, len(in))
	for k, vs := range in {
		if hopHeaders[k] || k == "Authorization" || k == "X-Tenant-Id" || strings.HasPrefix(k, "X-Recall-") {
			continue
		}
		out[k] = vs
	}
	if g.cfg.UpstreamKey != "" {
		out.Set("Authorization", "Bearer "+g.cfg.UpstreamKey)
	} else if a := in.Get("Authorization"); a != "" {
		out.Set("Authorization", a)
	}
	return out
}

// copyHeaders copies the upstream's answer headers to the caller, but the
// connection's own.
func copyHeaders(dst, src http.Header) {
	for k, vs := range src {
		if hopHeaders[k] {
			continue
		}
		dst[k] = vs
	}
}

// call sends a request upstream, to route below its base.
func (g *Gateway) call(ctx context.Context, method, route string, body []byte, h http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "", rd)
	if err != nil {
		return nil, err
	}
	req.URL = upstreamURL(g.base, route, "")
	req.Host = req.URL.Host
	req.Header = g.forwardHeaders(h)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.ContentLength = int64(len(body))
	}
	return g.client.Do(req)
}

// completion is a non-streamed answer as the gateway reads it: the first
// choice's message.
type completion struct {
	Choices []struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			ToolCalls []wireCall      `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// replyOf reads the reply of a non-streamed answer; nil when it has none.
func replyOf(body []byte) *message {
	var c completion
	if json.Unmarshal(body, &c) != nil || len(c.Choices) == 0 {
		return nil
	}
	m := c.Choices[0].Message
	text, _ := contentText(m.Content)
	r := &message{Role: roleAssistant, Text: text}
	for _, tc := range m.ToolCalls {
		r.Calls = append(r.Calls, call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return r
}

// streamReader follows a streamed answer's server-sent events as they
// pass and puts the first choice's reply together: its text, and its tool
// calls from their fragments. done is set by the choice's finish_reason;
// a stream that ends without one was cut short.
type streamReader struct {
	line  []byte
	text  strings.Builder
	calls []call
	done  bool
	// bad counts events it could not read.
	bad int
}

// chunk is one streamed event's data.
type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// Write takes the next bytes of the stream as they arrived.
func (s *streamReader) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.line = append(s.line, p...)
			break
		}
		s.line = append(s.line, p[:i]...)
		s.event(bytes.TrimRight(s.line, "\r"))
		s.line = s.line[:0]
		p = p[i+1:]
	}
	return n, nil
}

// event reads one line of the stream.
func (s *streamReader) event(line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "[DONE]" {
		return
	}
	var c chunk
	if json.Unmarshal(data, &c) != nil {
		s.bad++
		return
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != nil {
			s.text.WriteString(*ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			for len(s.calls) <= tc.Index && tc.Index < 1024 {
				s.calls = append(s.calls, call{})
			}
			if tc.Index >= len(s.calls) {
				continue
			}
			c := &s.calls[tc.Index]
			if tc.ID != "" {
				c.ID = tc.ID
			}
			c.Name += tc.Function.Name
			c.Arguments += tc.Function.Arguments
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.done = true
		}
	}
}

// reply is the reply the stream carried, nil when it was cut short.
func (s *streamReader) reply() *message {
	if !s.done {
		return nil
	}
	return &message{Role: roleAssistant, Text: s.text.String(), Calls: s.calls}
}

// relay copies a streamed answer to the caller as it arrives, flushing
// every read, while r follows it. It returns when the stream ends, the
// caller goes away (a callerGone error: what was last read may not have
// reached it) or ctx ends.
func relay(w http.ResponseWriter, body io.Reader, r *streamReader) error {
	flusher := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			_, _ = r.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				return callerGone{werr}
			}
			if ferr := flusher.Flush(); ferr != nil && !errors.Is(ferr, http.ErrNotSupported) {
				return callerGone{ferr}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// callerGone is relay's error when what it read could not be passed on.
type callerGone struct{ err error }

func (e callerGone) Error() string { return "the caller went away: " + e.err.Error() }
func (e callerGone) Unwrap() error { return e.err }

// openAIError is the OpenAI API's error body, which clients of the
// protocol read.
type openAIError struct {
	Error openAIErrorBody `json:"error"`
}

type openAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// writeOpenAIError answers with an error as the OpenAI API words one.
func writeOpenAIError(w http.ResponseWriter, status int, typ, code, param, msg string) {
	body := openAIError{Error: openAIErrorBody{Message: msg, Type: typ}}
	if param != "" {
		body.Error.Param = &param
	}
	if code != "" {
		body.Error.Code = &code
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
