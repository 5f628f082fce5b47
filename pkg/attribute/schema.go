// Package attribute is who a user is and what they asked for: the keys a
// user's attributes may hold (a schema: the documented default in schema.json,
// overridden per tenant by configuration), the assertions that set and
// retract their values (set explicitly, stated by the user, inferred by a
// model, derived from usage), and the rule that decides, from all of them,
// which values are current and when each earlier one stopped being so.
//
// Assertions are facts about events and never change once made; the
// current values and every value's validity are computed from them
// (Resolve), so the order in which they are stored (a replay, a late
// event) does not change the result, and event time alone orders them.
package attribute

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Kinds of key.
const (
	// Single holds one value; a new one supersedes it.
	Single = "single"
	// Set holds items that accumulate, each removable on its own.
	Set = "set"
)

// Groups of key: what the context says about the user, and what the user
// asked the assistant to do.
const (
	About      = "about"
	Preference = "preference"
)

// Key is one key of the schema.
type Key struct {
	Name  string `json:"key"`
	Kind  string `json:"kind"`
	Group string `json:"group"`
	// Label is how the context names the key, by language (en, zh).
	Label map[string]string `json:"label"`
	// Doc says what the key holds.
	Doc string `json:"doc"`
	// MaxChars bounds a value (0: DefaultMaxChars).
	MaxChars int `json:"max_chars,omitempty"`
	// Format is a rule every value of the key follows (Formats), checked
	// with the rest of an assertion (Normalize); empty: free text.
	Format string `json:"format,omitempty"`
}

// Formats a key's values may be held to.
const (
	// FormatTimezone: an IANA time zone name ("Asia/Shanghai", "UTC"), as
	// the time zone database names it; what usage habits are reckoned in.
	FormatTimezone = "timezone"
)

// Formats are the formats a schema may give a key.
var Formats = []string{FormatTimezone}

// KeyStatements is the set of the user's self-statements, in their own
// words (pkg/attribute/stated.Self): an item per matter.
const KeyStatements = "statements"

// DefaultMaxChars bounds a value of a key that sets no bound: a phrase, not
// a document.
const DefaultMaxChars = 200

// Limit is the most characters a value of k may have.
func (k Key) Limit() int {
	if k.MaxChars > 0 {
		return k.MaxChars
	}
	return DefaultMaxChars
}

// Schema is the keys a user's attributes may hold.
type Schema struct {
	Keys []Key `json:"keys"`
}

// Key looks a key up by name.
func (s *Schema) Key(name string) (Key, bool) {
	i := slices.IndexFunc(s.Keys, func(k Key) bool { return k.Name == name })
	if i < 0 {
		return Key{}, false
	}
	return s.Keys[i], true
}

// Names are the schema's key names, in its order.
func (s *Schema) Names() []string {
	out := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		out[i] = k.Name
	}
	return out
}

//go:embed schema.json
var defaultSchema []byte

// Default is the schema every tenant has unless configured otherwise
// (schema.json, documented in docs/attributes.md).
func Default() *Schema {
	s, err := parseSchema(defaultSchema)
	if err != nil {
		panic("attribute: the default schema: " + err.Error())
	}
	return s
}

var keyName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// check reports what is wrong with a schema: a key name that is not
// snake_case, a kind or group it does not know, a key twice, no label.
func (s *Schema) check() error {
	seen := map[string]bool{}
	for i, k := range s.Keys {
		where := fmt.Sprintf("keys[%d]", i)
		switch {
		case !keyName.MatchString(k.Name):
			return fmt.Errorf("%s.key %q: want lower-case letters, digits and _, starting with a letter, at most 40", where, k.Name)
		case seen[k.Name]:
			return fmt.Errorf("%s.key %q: defined twice", where, k.Name)
		case k.Kind != Single && k.Kind != Set:
			return fmt.Errorf("%s.kind %q: want single or set", where, k.Kind)
		case k.Group != About && k.Group != Preference:
			return fmt.Errorf("%s.group %q: want about or preference", where, k.Group)
		case k.Label["en"] == "":
			return fmt.Errorf("%s.label.en: required, how the context names the key", where)
		case k.MaxChars < 0:
			return fmt.Errorf("%s.max_chars: want 0 (the default, %d) or more", where, DefaultMaxChars)
		case k.Format != "" && !slices.Contains(Formats, k.Format):
			return fmt.Errorf("%s.format %q: want one of %s, or none", where, k.Format, strings.Join(Formats, ", "))
		}
		seen[k.Name] = true
	}
	return nil
}

func parseSchema(b []byte) (*Schema, error) {
	var s Schema
	if err := strictJSON(b, &s); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Schemas are the schema of each tenant: the default, and the overrides of
// the configuration (LoadSchemas).
type Schemas struct {
	def     *Schema
	tenants map[string]*Schema
}

// For is the schema of a tenant.
func (s *Schemas) For(tenant string) *Schema {
	if t, ok := s.tenants[tenant]; ok {
		return t
	}
	return s.def
}

// Override is the configuration of the schemas (ATTRIBUTE_SCHEMA_FILE): keys
// that replace the default's, and per tenant keys added (or replacing the
// default's of the same name) and keys dropped.
type Override struct {
	// Keys, when set, replace the default schema's keys for every tenant.
	Keys    []Key                     `json:"keys,omitempty"`
	Tenants map[string]TenantOverride `json:"tenants,omitempty"`
}

// TenantOverride changes the schema for one tenant.
type TenantOverride struct {
	// Keys are added, or replace the key of the same name.
	Keys []Key `json:"keys,omitempty"`
	// Drop are keys the tenant's users' attributes do not hold.
	Drop []string `json:"drop,omitempty"`
}

// LoadSchemas reads the schema override file at path ("": the default for
// every tenant). A file that does not parse, or that makes a schema the
// rules refuse, is an error naming what is wrong, at start.
func LoadSchemas(path string) (*Schemas, error) { return loadSchemas(schemaFileVar, path) }

// loadSchemas is LoadSchemas, its errors naming variable, the one that
// named path.
func loadSchemas(variable, path string) (*Schemas, error) {
	out := &Schemas{def: Default(), tenants: map[string]*Schema{}}
	if path == "" {
		return out, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", variable, err)
	}
	var o Override
	if err := strictJSON(b, &o); err != nil {
		return nil, fmt.Errorf("%s %s: %w", variable, path, err)
	}
	if o.Keys != nil {
		out.def = &Schema{Keys: o.Keys}
		if err := out.def.check(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", variable, path, err)
		}
	}
	for tenant, t := range o.Tenants {
		s := &Schema{Keys: slices.Clone(out.def.Keys)}
		for _, name := range t.Drop {
			i := slices.IndexFunc(s.Keys, func(k Key) bool { return k.Name == name })
			if i < 0 {
				return nil, fmt.Errorf("%s %s: tenants.%s.drop: no key %q", variable, path, tenant, name)
			}
			s.Keys = slices.Delete(s.Keys, i, i+1)
		}
		for _, k := range t.Keys {
			if i := slices.IndexFunc(s.Keys, func(x Key) bool { return x.Name == k.Name }); i >= 0 {
				s.Keys[i] = k
			} else {
				s.Keys = append(s.Keys, k)
			}
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("%s %s: tenants.%s: %w", variable, path, tenant, err)
		}
		out.tenants[tenant] = s
	}
	return out, nil
}

// strictJSON decodes b into v, refusing fields v does not have.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// The variables that name the schema file (Config's): schemaFileVar, and
// before it schemaFileOldVar, still read while schemaFileVar is unset.
const (
	schemaFileVar    = "ATTRIBUTE_SCHEMA_FILE"
	schemaFileOldVar = "PROFILE_SCHEMA_FILE"
)

// Config is where the schemas come from, for every binary that judges
// attributes (the API, the workers that store them).
type Config struct {
	// SchemaFile is a JSON file that overrides the default schema (keys
	// replacing the default's, and per tenant keys added, replaced or
	// dropped; docs/attributes.md); empty: the default for every tenant.
	SchemaFile string `env:"ATTRIBUTE_SCHEMA_FILE"`
	// OldSchemaFile is SchemaFile under its old name, read only while
	// SchemaFile is unset; a process that reads it logs a warning at
	// start. Deprecated: it goes in the next minor release.
	OldSchemaFile string `env:"PROFILE_SCHEMA_FILE" deprecated:"ATTRIBUTE_SCHEMA_FILE"`
}

// file is the schema file the config names and the variable that named
// it: SchemaFile, or while it is unset OldSchemaFile.
func (c Config) file() (variable, path string) {
	if c.SchemaFile == "" && c.OldSchemaFile != "" {
		return schemaFileOldVar, c.OldSchemaFile
	}
	return schemaFileVar, c.SchemaFile
}

// Schemas loads the schemas the config names; an error names the variable
// that named the file.
func (c Config) Schemas() (*Schemas, error) { return loadSchemas(c.file()) }
