package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recallhq/recall/pkg/mcpserver"
	"github.com/recallhq/recall/pkg/service"
)

// mcpCmd serves the MCP tools over stdio for an agent host that starts it
// (Claude Desktop, Cursor, ...), talking to the Recall API at RECALL_URL.
// Standard output carries the protocol only; logs go to standard error.
func mcpCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("mcp")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var cfg mcpserver.Config
	if err := service.LoadInto(&cfg, nil); err != nil {
		return err
	}
	service.LogConfig(log, cfg)
	c, err := cfg.Client()
	if err != nil {
		return err
	}
	err = mcpserver.New(c, cfg.Binding(), nil).Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil // the host closed the session
	}
	return err
}
