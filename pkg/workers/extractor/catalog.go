package extractor

import (
	"context"
	"sync"
	"time"

	"github.com/recallhq/recall/pkg/extract"
	"github.com/recallhq/recall/pkg/store"
)

// CatalogConfig tunes the per-tenant gazetteer built from the tenant's catalog.
type CatalogConfig struct {
	// Refresh is how long a tenant's gazetteer is used before it is rebuilt
	// from the catalog; 0 turns catalog matching off. The gazetteer
	// (Aho-Corasick) matches the catalog's titles and the people its items
	// name (author, artist, director, actors) in the text, so known items are
	// found without brackets or patterns.
	Refresh time.Duration `env:"EXTRACT_CATALOG_REFRESH" envDefault:"1m"`
	// MaxItems bounds the catalog items read per tenant.
	MaxItems int `env:"EXTRACT_CATALOG_MAX_ITEMS" envDefault:"200000"`
}

// catalogs keeps one gazetteer per tenant, rebuilt after Refresh. Known titles
// and people are found in text without brackets or patterns.
type catalogs struct {
	cfg   CatalogConfig
	store *store.Store
	mu    sync.Mutex
	byID  map[string]*tenantGazetteer
}

type tenantGazetteer struct {
	gaz    *extract.Gazetteer
	loaded time.Time
}

// kindOf maps a catalog item type to the fact kind of its title.
func kindOf(itemType string) extract.Kind {
	switch itemType {
	case "film", "movie", "tv", "show":
		return extract.KindFilm
	case "music", "song", "album", "track":
		return extract.KindMusic
	default:
		return extract.KindBookTitle
	}
}

// peopleKind is the kind of the people an item names: authors for books.
func peopleKind(itemType string) extract.Kind {
	if kindOf(itemType) == extract.KindBookTitle {
		return extract.KindAuthor
	}
	return extract.KindPerson
}

// get returns the tenant's gazetteer (nil when its catalog is empty).
func (c *catalogs) get(ctx context.Context, tenant string) (*extract.Gazetteer, error) {
	if c == nil || c.cfg.Refresh <= 0 {
		return nil, nil
	}
	c.mu.Lock()
	tg := c.byID[tenant]
	c.mu.Unlock()
	if tg != nil && time.Since(tg.loaded) < c.cfg.Refresh {
		return tg.gaz, nil
	}
	names, err := c.store.Tenant(tenant).CatalogNames(ctx, c.cfg.MaxItems)
	if err != nil {
		return nil, err
	}
	var entries []extract.CatalogEntry
	for _, n := range names {
		entries = append(entries, extract.CatalogEntry{Kind: kindOf(n.Type), Name: n.Title})
		for _, p := range n.People {
			entries = append(entries, extract.CatalogEntry{Kind: peopleKind(n.Type), Name: p})
		}
	}
	tg = &tenantGazetteer{loaded: time.Now()}
	if len(entries) > 0 {
		tg.gaz = extract.NewGazetteer(entries)
	}
	c.mu.Lock()
	c.byID[tenant] = tg
	c.mu.Unlock()
	return tg.gaz, nil
}
