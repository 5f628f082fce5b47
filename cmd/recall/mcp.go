package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/mcpserver"
	"github.com/recallhq/recall/pkg/service"
)

// mcpUsage is `recall mcp -h`: the command takes no flags, everything is in
// its environment, as an agent host's mcpServers entry sets it. The tools
// are listed from the server's own registry (mcpserver.Tools), so that a
// new tool cannot be left out of it.
func mcpUsage() string {
	var b strings.Builder
	b.WriteString(`usage: recall mcp

Serves Recall's memory tools over stdio, for the agent host that starts it.
Standard output carries the protocol; logs go to standard error.

tools:
`)
	for _, t := range mcpserver.Tools() {
		title := t.Title
		if t.Forget {
			title += " (only with MCP_ALLOW_FORGET=true)"
		}
		fmt.Fprintf(&b, "  %-16s%s\n", t.Name, title)
	}
	b.WriteString(`
environment:
  RECALL_URL              the Recall API (default http://127.0.0.1:8080)
  RECALL_TENANT           the tenant the tools work in (required)
  RECALL_API_KEY          the tenant's key, when the API has API_KEYS set
  RECALL_USER_ID          bind the tools to this user
  RECALL_SESSION_ID       the session a call uses when it names none
  MCP_ALLOW_FORGET        offer forget_user (default false)
  RECALL_TIMEOUT          one attempt of a request to the API (default 30s)
  RECALL_CONNECT_TIMEOUT  how long a tool call tries to reach the API before it fails (default 2s)
`)
	return b.String()
}

// mcpCmd serves the MCP tools over stdio for an agent host that starts it
// (Claude Desktop, Cursor, ...), talking to the Recall API at RECALL_URL.
// Standard output carries the protocol only; logs go to standard error.
func mcpCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("mcp")
	fs.Usage = func() { fmt.Fprint(fs.Output(), mcpUsage()) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	var cfg mcpserver.Config
	if err := envconfig.LoadInto(&cfg, nil); err != nil {
		return err
	}
	service.LogConfig(log, cfg)
	c, err := cfg.Client()
	if err != nil {
		return err
	}
	err = mcpserver.New(c, cfg.Binding()).Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the host closed the session
	}
	return err
}
