package infer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseAnswerIsStrict(t *testing.T) {
	t.Parallel()
	good := []string{
		`{"operations": []}`,
		`{"operations": null}`,
		"<think>the user said…</think>\n```json\n{\"operations\": [{\"op\": \"add\", \"key\": \"diet\", \"value\": \"vegetarian\", \"evidence\": [\"t1\"]}]}\n```",
		`{"operations": [{"op": "Retract", "key": " name ", "value": null, "evidence": ["t3"], "confidence": 0.8}], "note": "ignored"}`,
	}
	for _, c := range good {
		_, err := parseAnswer(c)
		require.NoError(t, err, c)
	}
	ops, err := parseAnswer(good[3])
	require.NoError(t, err)
	require.Equal(t, []operation{{Op: "retract", Key: "name", Evidence: []string{"t3"}, Confidence: 0.8}}, ops)
	ops, err = parseAnswer(good[2])
	require.NoError(t, err)
	require.InDelta(t, defaultConfidence, ops[0].Confidence, 1e-9)

	bad := map[string]string{
		"not json":                   `the user is vegetarian`,
		"null":                       `null`,
		"no operations":              `{"ops": []}`,
		"operations not an array":    `{"operations": {"op": "add"}}`,
		"an operation without a key": `{"operations": [{"op": "add", "value": "x", "evidence": ["t1"]}]}`,
		"without evidence":           `{"operations": [{"op": "add", "key": "diet", "value": "x"}]}`,
		"evidence not strings":       `{"operations": [{"op": "add", "key": "diet", "value": "x", "evidence": [1]}]}`,
		"confidence not a number":    `{"operations": [{"op": "add", "key": "diet", "value": "x", "evidence": ["t1"], "confidence": "high"}]}`,
	}
	for name, c := range bad {
		_, err := parseAnswer(c)
		require.Error(t, err, name)
	}
}
