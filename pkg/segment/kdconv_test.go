package segment_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/recallhq/recall/internal/testkit/deploycheck"
)

// kdconvDomains are the folders of ../shared/data/kdconv.
var kdconvDomains = []string{"film", "music", "travel"}

// kdconvFile reads one domain's conversations; the data always sits beside
// the repository.
func kdconvFile(tb testing.TB, domain string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(deploycheck.RepoRoot(), "..", "shared", "data", "kdconv", domain, "dev.json"))
	if err != nil {
		tb.Fatalf("read KdConv (it sits beside the repository in ../shared/data): %v", err)
	}
	return raw
}

// kdconvMessages are the messages of KdConv's conversations, in file order.
func kdconvMessages(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, domain := range kdconvDomains {
		var convs []struct {
			Messages []struct {
				Message string `json:"message"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(kdconvFile(tb, domain), &convs); err != nil {
			tb.Fatalf("parse KdConv %s: %v", domain, err)
		}
		for _, c := range convs {
			for _, m := range c.Messages {
				out = append(out, m.Message)
			}
		}
	}
	return out
}
