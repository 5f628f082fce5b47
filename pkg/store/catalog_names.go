package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// CatalogName is what the extractor's gazetteer needs of a catalog item: its type,
// its title and the people its attributes name (author, artist, director...).
type CatalogName struct {
	Type   string
	Title  string
	People []string
}

// CatalogNames lists the names of a tenant's live catalog items, at most limit.
func (t *Tenant) CatalogNames(ctx context.Context, limit int) ([]CatalogName, error) {
	rows, err := t.s.pool.Query(ctx, q(qCatalogNamesList), t.id, limit)
	if err != nil {
		return nil, fmt.Errorf("catalog names: %w", err)
	}
	names, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CatalogName, error) {
		var n CatalogName
		err := r.Scan(&n.Type, &n.Title, &n.People)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("catalog names: %w", err)
	}
	return names, nil
}
