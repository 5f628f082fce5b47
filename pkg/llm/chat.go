package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Complete asks the model once per attempt with the system prompt and the
// user's text, and hands the answer's content to parse, which accepts it by
// returning nil. It carries every bound of the client: the concurrency cap,
// the per-attempt timeout, the output limit, and retries by the package's
// rule, an answer parse rejects (or one cut off at MaxTokens) counting as
// malformed and being asked again. Requests ask for a JSON object
// (response_format); a server that refuses the parameter gets the request
// again without it, so parse must not rely on it (AnswerBody helps).
//
// It returns nil once parse accepted an answer; an *Error when every attempt
// failed or the request was refused; or the context's error (wrapped) when
// ctx ends first, so that the caller can tell shutdown from model trouble.
func (c *Client) Complete(ctx context.Context, system, user string, parse func(content string) error) error {
	err := c.do(ctx, func(actx context.Context) error {
		content, err := c.complete(actx, system, user)
		if err != nil {
			return err
		}
		if err := parse(content); err != nil {
			return malformed(err, true)
		}
		return nil
	})
	if _, ok := err.(*Error); ok || err == nil {
		return err
	}
	return fmt.Errorf("llm: %w", err)
}

// complete sends the chat request and returns the assistant's content. A
// server that refuses response_format gets the request again without it,
// at once, and never sees it again from this client.
func (c *Client) complete(ctx context.Context, system, user string) (string, error) {
	jsonMode := c.jsonMode.Load()
	resp, err := c.client.CreateChatCompletion(ctx, c.request(system, user, jsonMode))
	if err != nil && jsonMode && rejectsResponseFormat(err) {
		if c.jsonMode.CompareAndSwap(true, false) {
			c.log.InfoContext(ctx, "server refuses response_format; sending plain requests", "error", err)
		}
		resp, err = c.client.CreateChatCompletion(ctx, c.request(system, user, false))
	}
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", malformed(errors.New("answer has no choices"), true)
	}
	choice := resp.Choices[0]
	if choice.FinishReason == openai.FinishReasonLength {
		return "", malformed(fmt.Errorf("answer cut off at LLM_MAX_TOKENS=%d", c.cfg.MaxTokens), true)
	}
	return choice.Message.Content, nil
}

// request builds the chat request for the user's text under the system prompt.
func (c *Client) request(system, user string, jsonMode bool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model: c.cfg.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		MaxTokens:   c.cfg.MaxTokens,
		Temperature: c.cfg.Temperature,
	}
	if req.Temperature == 0 {
		// go-openai omits a zero temperature, which servers read as their
		// default (often 1); the smallest positive float is sent instead.
		req.Temperature = math.SmallestNonzeroFloat32
	}
	if jsonMode {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	if openai.NewReasoningValidator().Validate(req) != nil {
		// Reasoning models (o-series, gpt-5 and later) take
		// max_completion_tokens and a fixed temperature.
		req.MaxCompletionTokens, req.MaxTokens = req.MaxTokens, 0
		req.Temperature = 0
	}
	return req
}

// rejectsResponseFormat reports whether err is a server refusing the
// response_format parameter, which older OpenAI-compatible servers do.
func rejectsResponseFormat(err error) bool {
	status := httpStatus(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return false
	}
	msg := strings.ToLower(err.Error())
	if re, ok := errors.AsType[*openai.RequestError](err); ok {
		msg += " " + strings.ToLower(string(re.Body))
	}
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "response format")
}

// AnswerBody returns the JSON a model's answer holds, without the leading
// <think> block that reasoning models served by Ollama or vLLM emit and
// without a Markdown code fence, which many models add even when told not
// to. Parsers of strict JSON answers read what it returns.
func AnswerBody(content string) string { return stripFence(stripThink(content)) }

// stripFence removes a Markdown code fence around s, with or without a
// language tag.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "```")
	if !ok {
		return s
	}
	inner, ok = strings.CutSuffix(inner, "```")
	if !ok {
		return s
	}
	if tag, rest, found := strings.Cut(inner, "\n"); found && !strings.ContainsAny(tag, "{[") {
		inner = rest
	} else if !found {
		inner = strings.TrimPrefix(strings.TrimPrefix(inner, "json"), "JSON")
	}
	return strings.TrimSpace(inner)
}

// stripThink removes a leading <think>...</think> block.
func stripThink(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "<think>") {
		return s
	}
	if _, rest, ok := strings.Cut(s, "</think>"); ok {
		return rest
	}
	return s
}
