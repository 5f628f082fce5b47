package gateway

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/events"
)

// A body that is not one JSON object is refused with what is wrong with it
// and where, as a byte offset into the body.
func TestBodyThatIsNotAnObjectSaysWhatAndWhere(t *testing.T) {
	t.Parallel()
	const prefix = "We could not parse the JSON body of your request. (body): "
	for body, want := range map[string]string{
		`{"model":"x","messages":[`:   "malformed JSON, truncated: the body ends at offset 25, before its JSON object is complete.",
		`{"model":`:                   "malformed JSON, truncated: the body ends at offset 9, before its JSON object is complete.",
		`{"model" "x"}`:               "malformed JSON at offset 10: invalid character '\"' after object key.",
		`{"model":"x",}`:              "malformed JSON at offset 14: invalid character '}' looking for beginning of object key string.",
		`[1,2]`:                       "a JSON array, want a JSON object.",
		`"hi"`:                        "a JSON string, want a JSON object.",
		`null`:                        "JSON null, want a JSON object.",
		``:                            "empty, want a JSON object.",
		" \n":                         "empty, want a JSON object.",
		`{"model":"x"} {"model":"y"}`: "more after the JSON object, at offset 14; want one JSON object.",
	} {
		_, bad := parseChat([]byte(body), events.DefaultLimits)
		require.NotNil(t, bad, body)
		require.Empty(t, bad.param, body)
		require.Equal(t, prefix+want, bad.message, body)
	}
}
