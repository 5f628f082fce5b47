package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/client"
	"github.com/recallhq/recall/pkg/mcpserver"
)

// mcpRoute serves the MCP tools over streamable HTTP.
const mcpRoute = "POST /mcp"

// mcpHandler serves the MCP tools for /mcp. The route has checked the tenant
// and key as every /v1 route does; each tool then calls the API's own routes
// (api, in-process) with the same X-Tenant-ID and key, so a tool can do
// nothing the caller could not do over /v1. X-User-ID binds the tools to one
// user.
func (s *Server) mcpHandler(api http.Handler) http.Handler {
	inProcess := &http.Client{Transport: client.HandlerTransport(api)}
	return mcpserver.Handler(func(r *http.Request) (*client.Client, mcpserver.Binding) {
		key, _ := bearer(r.Header.Get("Authorization"))
		// The host is never dialled: the transport serves the request here.
		c, err := client.New("http://recall.invalid", client.WithTenant(r.Header.Get("X-Tenant-ID")), client.WithKey(key),
			client.WithHTTPClient(inProcess), client.WithRetry(client.Retry{}))
		if err != nil {
			return nil, mcpserver.Binding{}
		}
		return c, mcpserver.Binding{UserID: r.Header.Get("X-User-ID"), AllowForget: s.cfg.MCPAllowForget}
	}, s.cfg.MaxBodyBytes, s.log)
}
