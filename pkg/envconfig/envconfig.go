// Package envconfig reads a binary's typed config from the environment:
// each config is a struct whose env tags name its variables and hold their
// defaults, the one place they live (Defaults). It imports the env library
// alone, so that a policy package can take its defaults without the
// process scaffolding of pkg/service.
package envconfig

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// Load parses env into a config struct, applying the defaults in its tags.
func Load[T any]() (T, error) {
	var cfg T
	err := LoadInto(&cfg, nil)
	return cfg, err
}

// LoadInto parses variables into cfg: environ, or the process's environment
// when environ is nil. A field whose variable is unset takes its tag's
// default; a field with neither keeps the value cfg already holds, which is
// how a struct shared by several owners (a worker's runner settings) gets
// each owner's defaults. Errors name the variables, not the Go fields.
func LoadInto[T any](cfg *T, environ map[string]string) error {
	opts := env.Options{}
	if environ != nil {
		opts.Environment = environ
	}
	if old := Renamed(reflect.TypeOf(cfg).Elem(), lookupIn(environ)); len(old) > 0 {
		// A variable set only under its former name is read as the new one.
		if environ == nil {
			environ = env.ToMap(os.Environ())
		}
		next := maps.Clone(environ)
		for _, r := range old {
			if !r.NewSet {
				next[r.New] = environ[r.Old]
			}
		}
		opts.Environment = next
	}
	if err := env.ParseWithOptions(cfg, opts); err != nil {
		return fmt.Errorf("config: %w", nameVariables[T](err))
	}
	return nil
}

// RenamedVar is a variable set under its former name: a field tagged
// envOld:"OLD" reads OLD (under the field's prefix) while its own variable
// is unset.
type RenamedVar struct {
	// Old is the former name, New the field's own.
	Old, New string
	// NewSet: New is set too, and wins (Old is ignored).
	NewSet bool
}

// Renamed lists the variables of config type t that lookup finds set under
// their former names (envOld tags).
func Renamed(t reflect.Type, lookup func(string) (string, bool)) []RenamedVar {
	var out []RenamedVar
	for _, f := range Fields(t) {
		old, ok := f.Field.Tag.Lookup("envOld")
		if !ok {
			continue
		}
		if _, set := lookup(f.Prefix + old); set {
			_, newSet := lookup(f.Key)
			out = append(out, RenamedVar{Old: f.Prefix + old, New: f.Key, NewSet: newSet})
		}
	}
	return out
}

// lookupIn looks a variable up in environ, or in the process's environment
// when environ is nil.
func lookupIn(environ map[string]string) func(string) (string, bool) {
	if environ == nil {
		return os.LookupEnv
	}
	return func(k string) (string, bool) { v, ok := environ[k]; return v, ok }
}

// Defaults returns T as its env tags define it with no variable set: the one
// place a config's defaults live, for code that builds a config without the
// environment (tests, tools). A tag default that does not parse is a bug in
// the program, so it panics.
func Defaults[T any]() T {
	var cfg T
	if err := LoadInto(&cfg, map[string]string{}); err != nil {
		panic(fmt.Sprintf("config defaults of %T: %v", cfg, err))
	}
	return cfg
}

// ZeroDefaults is cfg with each of its own fields that is unset (its zero
// value) set to that field's default (Defaults): a config built in code then
// behaves like one read from an empty environment. Nested structs are left
// as they are; a field whose zero value means something (a 0 that turns a
// part off) must be filled by hand instead.
func ZeroDefaults[T any](cfg T) T {
	d := Defaults[T]()
	v, dv := reflect.ValueOf(&cfg).Elem(), reflect.ValueOf(d)
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Struct && f.CanSet() && f.IsZero() {
			f.Set(dv.Field(i))
		}
	}
	return cfg
}

// nameVariables rewrites parse errors, which name Go fields, to name the env
// variables an operator actually sets.
func nameVariables[T any](err error) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	var zero T
	t := reflect.TypeOf(zero)
	keys := map[string][]string{} // field name -> env keys
	for _, f := range Fields(t) {
		keys[f.Field.Name] = append(keys[f.Field.Name], f.Key)
	}
	msgs := make([]string, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) && len(keys[pe.Name]) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s: %v", strings.Join(keys[pe.Name], " or "), pe.Err))
			continue
		}
		msgs = append(msgs, e.Error())
	}
	return errors.New(strings.Join(msgs, "; "))
}

// EnvVars lists every env variable a config struct reads, for docs and for the
// deployment tests that check manifests against the binaries.
func EnvVars[T any]() []string {
	var zero T
	params, err := env.GetFieldParams(&zero)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(params))
	for _, p := range params {
		out = append(out, p.Key)
	}
	return out
}

// Field is one env variable of a config struct, as the env library reads it:
// the generated configuration reference lists them, and LogConfig and the
// parse errors name them.
type Field struct {
	// Key is the variable, its prefixes included (INGEST_CONSUMER_ACK_WAIT).
	Key string
	// Prefix is the envPrefix the key is under ("" for none): a struct used
	// by several owners (a worker's queue settings) reads one variable per
	// prefix.
	Prefix string
	// Index is the field's path from the top struct (reflect's FieldByIndex).
	Index []int
	// Owner is the struct that declares the field, whose source holds its
	// doc comment.
	Owner reflect.Type
	// Field is the struct field itself, with its tags.
	Field reflect.StructField
}

// Fields lists the env variables of a config struct in declaration order,
// nested structs (and their envPrefix) included.
func Fields(t reflect.Type) []Field {
	var out []Field
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			if !f.IsExported() {
				continue
			}
			if f.Type.Kind() == reflect.Struct && f.Tag.Get("env") == "" && f.Type != reflect.TypeOf(time.Time{}) {
				walk(f.Type, prefix+f.Tag.Get("envPrefix"), idx)
				continue
			}
			if k, _, _ := strings.Cut(f.Tag.Get("env"), ","); k != "" {
				out = append(out, Field{Key: prefix + k, Prefix: prefix, Index: idx, Owner: t, Field: f})
			}
		}
	}
	walk(t, "", nil)
	return out
}
