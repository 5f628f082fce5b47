package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5"

	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/store"
)

type migrateConfig struct {
	LogLevel slog.Level `env:"LOG_LEVEL" envDefault:"info"`
	DB       store.Config
}

// migrateCmd applies migrations under an advisory lock: safe to run from a Job,
// an init container and a developer's shell at the same time.
func migrateCmd(ctx context.Context, log *slog.Logger, args []string) error {
	fs := newFlags("migrate")
	createDB := fs.Bool("create-db", false, "create the database first if it does not exist (local set-up)")
	down := fs.Int("down", -1, "roll back to this version instead (0 = empty schema)")
	to := fs.Int("to", 0, "apply up to this version (0 = latest)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := envconfig.Load[migrateConfig]()
	if err != nil {
		return err
	}
	if *createDB {
		created, err := store.EnsureDatabase(ctx, cfg.DB.URL)
		if err != nil {
			return err
		}
		if created {
			log.Info("database created")
		}
	}
	conn, err := pgx.Connect(ctx, cfg.DB.URL)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if *down >= 0 {
		undone, err := store.MigrateDown(ctx, conn, *down, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stdout, "rolled back %d migration(s)\n", len(undone))
		return nil
	}
	applied, err := store.Migrate(ctx, conn, *to, log)
	if err != nil {
		return err
	}
	v, err := store.CurrentVersion(ctx, conn)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "applied %d migration(s); schema at version %d\n", len(applied), v)
	return nil
}
