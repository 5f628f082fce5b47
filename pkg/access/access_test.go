package access_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/access"
)

func valid(s string) bool { return s != "" && len(s) <= 8 }

func request(hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

func TestParseKeys(t *testing.T) {
	k, err := access.ParseKeys(" acme:0123456789abcdef , beta:fedcba9876543210 ")
	require.NoError(t, err)
	require.True(t, k.Enabled())
	for _, bad := range []string{"acme", "acme:short", ":0123456789abcdef"} {
		_, err := access.ParseKeys(bad)
		require.Error(t, err, bad)
	}
	none, err := access.ParseKeys("")
	require.NoError(t, err)
	require.False(t, none.Enabled())
	var nilKeys *access.Keys
	require.False(t, nilKeys.Enabled())
}

func TestRequestNamesTheTenantAndChecksItsKey(t *testing.T) {
	k, err := access.ParseKeys("acme:0123456789abcdef")
	require.NoError(t, err)

	tenant, d := k.Request(request("X-Tenant-ID", "acme", "Authorization", "Bearer 0123456789abcdef"), "Authorization", valid, 8)
	require.Nil(t, d)
	require.Equal(t, "acme", tenant)
	// The key may come in another header (the gateway's X-Recall-Key).
	_, d = k.Request(request("X-Tenant-ID", "acme", "X-Recall-Key", "bearer 0123456789abcdef"), "X-Recall-Key", valid, 8)
	require.Nil(t, d)

	cases := []struct {
		hdr    []string
		status int
		field  string
	}{
		{nil, 400, "X-Tenant-ID"},
		{[]string{"X-Tenant-ID", "much-too-long"}, 400, "X-Tenant-ID"},
		{[]string{"X-Tenant-ID", "acme"}, 401, "Authorization"},
		{[]string{"X-Tenant-ID", "acme", "Authorization", "0123456789abcdef"}, 401, "Authorization"},
		{[]string{"X-Tenant-ID", "acme", "Authorization", "Basic 0123456789abcdef"}, 401, "Authorization"},
		{[]string{"X-Tenant-ID", "acme", "Authorization", "Bearer wrong-key-000000"}, 401, "Authorization"},
		{[]string{"X-Tenant-ID", "beta", "Authorization", "Bearer 0123456789abcdef"}, 403, ""},
	}
	for _, c := range cases {
		_, d := k.Request(request(c.hdr...), "Authorization", valid, 8)
		require.NotNil(t, d, "%v", c.hdr)
		require.Equal(t, c.status, d.Status, "%v", c.hdr)
		require.Equal(t, c.field, d.Field, "%v", c.hdr)
		if c.status == 401 {
			require.NotEmpty(t, d.Challenge)
			require.NotEmpty(t, d.Problem)
		}
	}

	// Without keys, the header alone names the tenant.
	none, _ := access.ParseKeys("")
	tenant, d = none.Request(request("X-Tenant-ID", "acme"), "Authorization", valid, 8)
	require.Nil(t, d)
	require.Equal(t, "acme", tenant)
}
