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
