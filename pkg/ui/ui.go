// Package ui is Recall's memory inspector: what Recall remembers about a user,
// and why. Its pages are plain HTML, CSS and JavaScript modules, embedded in
// the binary and served by the API at /ui/; they hold no data and need no
// build step. Every call they make is an ordinary /v1 request with the
// tenant and key the person gives them (kept in the browser's
// sessionStorage), so the inspector sees exactly what that key may see.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed assets
var assets embed.FS

// Handler serves the inspector's files under /ui/. The pages load only their
// own files and talk only to their own origin (Content-Security-Policy), so
// text from memory can never run as script.
func Handler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	files := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Small files, revalidated on every load so a new binary's pages
		// are never mixed with an old one's.
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
