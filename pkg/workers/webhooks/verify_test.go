package webhooks

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/webhooks"
)

// verifyWebhook is the receiver's check that docs/webhooks.md shows for Go,
// word for word (TestDocsShowTheTestedGoCheck); the end-to-end tests'
// receivers verify every delivery with it.
//
// verifyWebhook checks a delivery: secret is the endpoint's, body the
// request's body exactly as read, now the receiver's clock.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	ts := h.Get("Recall-Webhook-Timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("no timestamp")
	}
	if age := now.Sub(time.Unix(sec, 0)); age > 5*time.Minute || age < -5*time.Minute {
		return errors.New("timestamp too far from now")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(body)))
	want := "v1=" + hex.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("Recall-Webhook-Signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("bad signature")
}

// The Go check in docs/webhooks.md is verifyWebhook above, so that what the
// docs show is what verifies real deliveries here.
func TestDocsShowTheTestedGoCheck(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("verify_test.go")
	require.NoError(t, err)
	fn := regexp.MustCompile(`(?s)\nfunc verifyWebhook\(.*?\n}\n`).Find(src)
	require.NotNil(t, fn)
	doc, err := os.ReadFile("../../../docs/webhooks.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(doc, -1)
	require.NotEmpty(t, blocks, "docs/webhooks.md has no Go block")
	found := false
	for _, b := range blocks {
		found = found || strings.Contains(string(b[1]), strings.TrimPrefix(string(fn), "\n"))
	}
	require.True(t, found, "docs/webhooks.md's Go check is not verifyWebhook of verify_test.go:\n%s", fn)
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"chg-1"}`)
	at := time.Unix(1_800_000_000, 0)
	h := http.Header{}
	h.Set("Recall-Webhook-Timestamp", strconv.FormatInt(at.Unix(), 10))
	mac := hmac.New(sha256.New, []byte("s3cret-s3cret-s3cret"))
	mac.Write([]byte(h.Get("Recall-Webhook-Timestamp") + "." + string(body)))
	h.Set("Recall-Webhook-Signature", "v1="+hex.EncodeToString(mac.Sum(nil)))
	require.NoError(t, verifyWebhook("s3cret-s3cret-s3cret", h, body, at.Add(time.Minute)))
	require.Error(t, verifyWebhook("another-secret-value", h, body, at))
	require.Error(t, verifyWebhook("s3cret-s3cret-s3cret", h, []byte(`{"id":"chg-2"}`), at))
	require.Error(t, verifyWebhook("s3cret-s3cret-s3cret", h, body, at.Add(6*time.Minute)))
}

// The Python check in docs/webhooks.md accepts what the worker signs
// (webhooks.Sign) and refuses another secret, another body and an old
// timestamp.
func TestDocsPythonCheckVerifiesSignedBodies(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	doc, err := os.ReadFile("../../../docs/webhooks.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```python\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/webhooks.md has no Python block")
	body := []byte(`{"v":1,"id":"chg-1","type":"user.forgotten","note":"é"}`)
	at := time.Now()
	h := http.Header{}
	webhooks.Sign(h, "s3cret-s3cret-s3cret", "chg-1", "user.forgotten", at, body)
	script := string(m[1]) + `
import json, sys
d = json.load(sys.stdin)
h, body = d["headers"], d["body"].encode()
print(verify_webhook("s3cret-s3cret-s3cret", h, body),
      verify_webhook("another-secret-value", h, body),
      verify_webhook("s3cret-s3cret-s3cret", h, body + b" "),
      verify_webhook("s3cret-s3cret-s3cret", h, body, now=float(h["Recall-Webhook-Timestamp"]) + 301))
`
	in, err := json.Marshal(map[string]any{"body": string(body), "headers": map[string]string{
		"Recall-Webhook-Timestamp": h.Get(webhooks.HeaderTimestamp), "Recall-Webhook-Signature": h.Get(webhooks.HeaderSignature)}})
	require.NoError(t, err)
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "True False False False", strings.TrimSpace(string(out)))
	require.NoError(t, verifyWebhook("s3cret-s3cret-s3cret", h, body, at))
}
