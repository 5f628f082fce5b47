package openaitest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"{}", []string{"{}"}},
		{"Hello there, world", []string{"Hello", " there,", " world"}},
		{" lead  and trail ", []string{" lead", "  and", " trail", " "}},
		{"one\n\ntwo", []string{"one", "\n\ntwo"}},
		{`{"query":"sci-fi"}`, []string{`{"query"`, `:"sci-fi`, `"}`}},
		{" science", []string{" science"}},
		{" sciences", []string{" science", "s"}},
		{"三体是刘慈欣写的科幻小说", []string{"三体是刘慈欣写的", "科幻小说"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got := splitText(tt.in)
			require.Equal(t, tt.want, got)
			require.Equal(t, tt.in, strings.Join(got, ""))
		})
	}
}
