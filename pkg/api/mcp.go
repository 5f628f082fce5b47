package api

import (
	"net/http"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/mcpserver"
)

// mcpRoute serves the MCP tools over streamable HTTP.
const mcpRoute = "POST /mcp"

// mcpHandler serves the MCP tools for /mcp. The route has checked the tenant
// and key as every /v1 route does; the tools then call the memory service
// in-process as that tenant, with the same checks of their parameters as
// the /v1 routes, so a tool can do nothing the caller could not do over /v1.
// X-User-ID binds the tools to one user.
func (s *Server) mcpHandler() http.Handler {
	return mcpserver.Handler(func(r *http.Request) (contract.Memory, mcpserver.Binding) {
		return s.mem.For(r.Header.Get("X-Tenant-ID")), mcpserver.Binding{UserID: r.Header.Get("X-User-ID"), AllowForget: s.cfg.MCPAllowForget}
	}, s.cfg.MaxBodyBytes, s.log)
}
