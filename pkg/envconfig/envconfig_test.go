package envconfig_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/pkg/envconfig"
)

type queueSettings struct {
	Wait time.Duration `env:"WAIT" envDefault:"1s"`
}

type walked struct {
	A     queueSettings `envPrefix:"A_"`
	B     queueSettings `envPrefix:"B_"`
	Plain string        `env:"PLAIN"`
	Time  time.Time     `env:"AT"`
	_     string        // unexported: never a variable
}

// Fields lists what the env library reads, in order: a shared struct once
// per prefix, owned by the struct that declares the field.
func TestFields(t *testing.T) {
	t.Parallel()
	fields := envconfig.Fields(reflect.TypeOf(walked{}))
	var keys, prefixes, owners []string
	for _, f := range fields {
		keys = append(keys, f.Key)
		prefixes = append(prefixes, f.Prefix)
		owners = append(owners, f.Owner.Name()+"."+f.Field.Name)
	}
	require.Equal(t, []string{"A_WAIT", "B_WAIT", "PLAIN", "AT"}, keys)
	require.Equal(t, []string{"A_", "B_", "", ""}, prefixes)
	require.Equal(t, []string{"queueSettings.Wait", "queueSettings.Wait", "walked.Plain", "walked.Time"}, owners)
	require.Equal(t, []int{1, 0}, fields[1].Index)
	require.Equal(t, envconfig.EnvVars[walked](), keys, "the same variables as the env library's")
}

func TestZeroDefaultsFillsOnlyWhatIsUnset(t *testing.T) {
	type inner struct {
		N int `env:"ZD_INNER" envDefault:"9"`
	}
	type cfg struct {
		A string        `env:"ZD_A" envDefault:"a"`
		B time.Duration `env:"ZD_B" envDefault:"2s"`
		C int           `env:"ZD_C" envDefault:"3"`
		I inner
	}
	got := envconfig.ZeroDefaults(cfg{B: time.Minute})
	require.Equal(t, cfg{A: "a", B: time.Minute, C: 3}, got, "set fields stay; nested structs are left alone")
}

type renamedSettings struct {
	N int  `env:"NEW_N" envOld:"OLD_N" envDefault:"5"`
	B bool `env:"NEW_B" envOld:"OLD_B" envDefault:"true"`
}

type renamedOuter struct {
	P renamedSettings `envPrefix:"P_"`
}

// A variable renamed is read under its former name while the new one is
// unset, whatever its default, and ignored once the new one is set.
func TestFormerNames(t *testing.T) {
	t.Parallel()
	load := func(environ map[string]string) renamedOuter {
		var c renamedOuter
		require.NoError(t, envconfig.LoadInto(&c, environ))
		return c
	}
	require.Equal(t, renamedSettings{N: 5, B: true}, load(map[string]string{}).P)
	require.Equal(t, renamedSettings{N: 7, B: false}, load(map[string]string{"P_OLD_N": "7", "P_OLD_B": "false"}).P)
	require.Equal(t, renamedSettings{N: 9, B: true}, load(map[string]string{"P_OLD_N": "7", "P_NEW_N": "9"}).P)
	var c renamedOuter
	err := envconfig.LoadInto(&c, map[string]string{"P_OLD_N": "seven"})
	require.ErrorContains(t, err, "P_NEW_N", "a bad value under the former name is refused")

	lookup := func(environ map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := environ[k]; return v, ok }
	}
	require.Empty(t, envconfig.Renamed(reflect.TypeOf(renamedOuter{}), lookup(map[string]string{"P_NEW_N": "1"})))
	require.Equal(t, []envconfig.RenamedVar{{Old: "P_OLD_N", New: "P_NEW_N", NewSet: true}, {Old: "P_OLD_B", New: "P_NEW_B"}},
		envconfig.Renamed(reflect.TypeOf(renamedOuter{}), lookup(map[string]string{"P_OLD_N": "7", "P_NEW_N": "9", "P_OLD_B": "false"})))
}
