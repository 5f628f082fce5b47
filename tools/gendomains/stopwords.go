package main

import "strings"

// stopwords are words that never give a domain: function words, the most
// general nouns, verbs and adjectives, whose domain senses are too rare to
// count ("make", "get", "thing", "good"), and phrases of everyday speech
// that WordNet also lists in a rare sense ("at home", a reception).
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(stopwordText) {
		m[w] = true
	}
	return m
}()

const stopwordText = `
a about above across after again against all almost along already also
although always am among an and another any anybody anyone anything anyway
anywhere are around as at away back be because been before being below
beside besides between beyond both but by can cannot could did do does doing
done down during each either else enough even ever every everybody everyone
everything everywhere few for from further had has have having he her here
hers herself him himself his how however i if in indeed into is it its
itself just least less let like many may me might mine more most much must
my myself neither never no nobody none nor not nothing now of off often on
once one only onto or other others otherwise our ours ourselves out over own
per perhaps please quite rather really same shall she should since so some
somebody someone something sometimes somewhere still such than that the
their theirs them themselves then there therefore these they this those
though through thus till to too toward towards under unless until up upon
us very via was we well were what whatever when whenever where wherever
whether which while who whoever whole whom whose why will with within
without would yes yet you your yours yourself yourselves
ok okay thanks thank sure maybe yeah hi hello hey bye

thing things stuff way ways lot lots kind kinds sort sorts part parts
bit piece type types time times day days week weeks month months year years
today tomorrow yesterday tonight morning evening night moment minute hour
point case fact idea question answer problem issue matter reason example
number amount place person people man woman guy someone
make makes made making get gets got getting go goes went gone going
take takes took taken give gives gave given put puts keep keeps kept
come comes came coming see sees saw seen look looks looked know knows
knew known think thinks thought want wants wanted need needs needed
use uses used try tries tried say says said tell tells told ask asks
asked seem seems seemed feel feels felt find finds found mean means meant
let lets help helps start starts stop stops turn turns show shows call
calls like likes liked love loves hate hates prefer prefers avoid avoids
recommend recommends suggest suggests
at_home sign_up
good better best bad worse worst great fine nice new old big small little
large long short high low right wrong real true sure own able last next
first second different same important certain possible main general
best
`
