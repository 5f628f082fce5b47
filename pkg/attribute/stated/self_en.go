package stated

import (
	"slices"
	"strings"
	"unicode"
)

// word is a token of an English sentence: lower-cased, contractions
// opened ("I'm" is "i" "am", "can't" is "can" "not"), with where it ends
// in the sentence.
type word struct {
	w   string
	end int
	// brk: a comma, a colon or a bracket follows: the phrase ends.
	brk bool
}

func tokensEN(s string) []word {
	var out []word
	i := 0
	for i < len(s) {
		r := rune(s[i])
		if r >= 0x80 {
			r = []rune(s[i:])[0]
		}
		if !isWordRune(r) {
			i += len(string(r))
			continue
		}
		j := i
		for j < len(s) {
			q := []rune(s[j:min(len(s), j+4)])[0]
			if !isWordRune(q) && !(q == '\'' || q == '’') {
				break
			}
			j += len(string(q))
		}
		t := strings.ToLower(strings.ReplaceAll(s[i:j], "’", "'"))
		t = strings.Trim(t, "'")
		out = append(out, open(t, j)...)
		if k := strings.IndexFunc(s[j:], func(r rune) bool { return !unicode.IsSpace(r) }); k >= 0 && strings.ContainsRune(",;:()–—", []rune(s[j+k:])[0]) {
			out[len(out)-1].brk = true
		}
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' }

// open splits a contraction into its words.
func open(t string, end int) []word {
	one := func(ws ...string) []word {
		out := make([]word, len(ws))
		for i, w := range ws {
			out[i] = word{w: w, end: end}
		}
		return out
	}
	switch t {
	case "i'm":
		return one("i", "am")
	case "can't", "cannot":
		return one("can", "not")
	case "won't":
		return one("will", "not")
	case "shan't":
		return one("shall", "not")
	}
	if base, ok := strings.CutSuffix(t, "n't"); ok {
		return one(base, "not")
	}
	for _, c := range [...]struct{ suf, w string }{{"'ve", "have"}, {"'d", "would"}, {"'ll", "will"}, {"'re", "are"}, {"'s", "'s"}} {
		if base, ok := strings.CutSuffix(t, c.suf); ok && base != "" {
			return one(base, c.w)
		}
	}
	return one(t)
}

// The words a verb phrase is read through.
var (
	adverbsEN = set("really", "truly", "just", "also", "still", "generally", "typically", "normally", "honestly", "personally",
		"definitely", "totally", "completely", "actually", "mostly", "mainly", "now", "currently", "already", "even", "simply",
		"genuinely", "seriously", "kinda", "especially", "particularly", "very", "so", "quite", "pretty", "absolutely",
		"strongly", "deeply", "much", "certainly", "naturally", "literally", "fully", "sincerely", "greatly", "totally",
		"finally", "recently", "lately", "both", "all", "too", "increasingly")
	habitAdverbsEN = set("always", "usually", "often", "sometimes", "regularly", "rarely", "seldom", "frequently",
		"occasionally", "constantly", "normally", "typically", "generally", "mostly", "daily", "hardly", "only", "exclusively",
		"solely", "strictly", "primarily", "religiously")
	boostEN = set("really", "truly", "absolutely", "strongly", "deeply", "extremely", "very", "so", "totally", "completely",
		"seriously", "genuinely", "severe", "severely", "intense", "intensely", "strong", "terribly", "always", "never", "definitely",
		"extreme", "extremely", "exclusively", "strictly", "only", "much")
	hedgeEN = set("kinda", "somewhat", "slightly", "sometimes", "occasionally", "bit", "little", "mildly", "fairly")

	stanceVerbs = map[string]struct {
		kind  string
		boost float64
	}{
		"like": {KindLike, 0}, "love": {KindLike, 0.1}, "enjoy": {KindLike, 0}, "adore": {KindLike, 0.15},
		"prefer": {KindLike, 0.05}, "favor": {KindLike, 0}, "favour": {KindLike, 0}, "appreciate": {KindLike, 0},
		"cherish": {KindLike, 0.05}, "relish": {KindLike, 0}, "fancy": {KindLike, 0},
		"hate": {KindDislike, 0.15}, "dislike": {KindDislike, 0}, "despise": {KindDislike, 0.2}, "loathe": {KindDislike, 0.2},
		"detest": {KindDislike, 0.2}, "abhor": {KindDislike, 0.2}, "resent": {KindDislike, 0.05},
		"avoid": {KindAvoid, 0.05}, "shun": {KindAvoid, 0.05}, "refuse": {KindAvoid, 0.05}, "skip": {KindAvoid, 0},
		"fear": {KindFear, 0.05}, "dread": {KindFear, 0.05},
	}
	// activityVerbs are what people do in their lives: in the present
	// tense ("I cook at home", "we never fly") they are habits; negated,
	// what the user stays away from.
	activityVerbs = set("eat", "drink", "cook", "bake", "read", "watch", "play", "listen", "run", "swim", "cycle", "bike", "hike",
		"travel", "fly", "drive", "ride", "wear", "use", "shop", "go", "practice", "practise", "meditate", "sleep", "wake",
		"exercise", "train", "smoke", "walk", "camp", "garden", "paint", "draw", "write", "knit", "sew", "dance", "sing",
		"collect", "visit", "stay", "spend", "buy", "own", "keep", "take", "do", "celebrate", "volunteer", "commute", "fish",
		"climb", "ski", "surf", "skate", "lift", "jog", "cycle", "game", "stream", "journal", "pray", "fast", "drink", "speak",
		"attend", "follow", "support", "rent", "invest", "save", "budget", "homeschool", "work", "study", "teach", "drive")
	// copula states: "I am …".
	copulaStates = map[string]string{
		"allergic": KindHealth, "intolerant": KindHealth, "diabetic": KindHealth, "celiac": KindHealth, "coeliac": KindHealth,
		"vegetarian": KindHealth, "vegan": KindHealth, "pescatarian": KindHealth, "gluten-free": KindHealth, "lactose": KindHealth,
		"pregnant": KindHealth, "sober": KindHealth, "asthmatic": KindHealth, "epileptic": KindHealth, "keto": KindHealth,
		"kosher": KindHealth, "halal": KindHealth, "sensitive": KindHealth, "dairy-free": KindHealth, "teetotal": KindHealth,
		"afraid": KindFear, "scared": KindFear, "terrified": KindFear, "frightened": KindFear, "fearful": KindFear,
		"phobic": KindFear, "claustrophobic": KindFear, "anxious": KindFear, "nervous": KindFear,
		"into": KindLike, "interested": KindLike, "passionate": KindLike, "keen": KindLike, "fond": KindLike,
		"obsessed": KindLike, "crazy": KindLike, "big": KindLike, "addicted": KindLike, "partial": KindLike,
		"drawn": KindLike, "devoted": KindLike, "enthusiastic": KindLike, "hooked": KindLike,
		"uninterested": KindDislike, "disinterested": KindDislike, "opposed": KindDislike, "against": KindDislike,
		"prone": KindHealth, "susceptible": KindHealth, "committed": KindLike, "dedicated": KindLike,
		"tired": KindDislike, "sick": KindDislike, "fed": KindDislike, "bored": KindDislike, "averse": KindDislike,
		"uncomfortable": KindDislike, "wary": KindAvoid, "cautious": KindAvoid, "careful": KindAvoid,
		"retired": KindIdentity, "married": KindFamily, "divorced": KindIdentity, "single": KindIdentity, "engaged": KindFamily,
		"widowed": KindFamily, "unemployed": KindIdentity, "self-employed": KindIdentity, "left-handed": KindIdentity,
		"colorblind": KindIdentity, "color-blind": KindIdentity, "introverted": KindIdentity, "extroverted": KindIdentity,
		"shy": KindIdentity, "disabled": KindHealth, "deaf": KindHealth, "blind": KindHealth, "injured": KindHealth,
		"based": KindLocation, "living": KindLocation, "from": KindIdentity,
		"learning": KindGoal, "studying": KindGoal, "training": KindGoal, "saving": KindGoal, "preparing": KindGoal,
		"planning": KindGoal, "trying": KindGoal, "working": KindIdentity, "raising": KindFamily, "expecting": KindFamily,
		"on": KindLimit,
	}
	// stanceNouns after "have": "I have a fear of …", "I have no interest in …".
	stanceNouns = map[string]string{
		"fear": KindFear, "phobia": KindFear, "terror": KindFear,
		"aversion": KindDislike, "dislike": KindDislike, "distaste": KindDislike, "hatred": KindDislike,
		"allergy": KindHealth, "allergies": KindHealth, "intolerance": KindHealth, "sensitivity": KindHealth,
		"condition": KindHealth, "asthma": KindHealth, "diabetes": KindHealth, "arthritis": KindHealth, "migraines": KindHealth,
		"anxiety": KindHealth, "adhd": KindHealth, "autism": KindHealth, "injury": KindHealth, "disability": KindHealth,
		"eczema": KindHealth, "insomnia": KindHealth, "depression": KindHealth, "epilepsy": KindHealth, "celiac": KindHealth,
		"love": KindLike, "passion": KindLike, "fondness": KindLike, "weakness": KindLike, "penchant": KindLike,
		"preference": KindLike, "interest": KindLike, "soft": KindLike, "thing": KindLike, "tolerance": KindLike,
		"budget": KindLimit,
	}
	// familyNouns are the people and animals a user cares for.
	familyNouns = set("son", "sons", "daughter", "daughters", "wife", "husband", "partner", "spouse", "kid", "kids", "child",
		"children", "mother", "mom", "mum", "father", "dad", "baby", "babies", "boyfriend", "girlfriend", "fiance", "fiancee",
		"brother", "brothers", "sister", "sisters", "parents", "grandmother", "grandfather", "grandma", "grandpa", "grandson",
		"granddaughter", "grandchildren", "toddler", "twins", "family", "niece", "nephew", "aunt", "uncle", "cousin", "roommate",
		"dog", "dogs", "cat", "cats", "puppy", "kitten", "pet", "pets", "parrot", "rabbit", "hamster", "horse", "fish",
		"bird", "turtle", "lizard", "snake", "guinea", "ferret", "teenager", "teen", "teens", "stepson", "stepdaughter", "in-laws")
	// homeNouns are what a home has: "I have a small balcony".
	homeNouns = set("house", "apartment", "flat", "garden", "yard", "backyard", "balcony", "kitchen", "car", "bike", "bicycle",
		"motorcycle", "motorbike", "truck", "van", "suv", "pool", "basement", "garage", "studio", "condo", "farm", "boat")
	// selfNouns after "my": "my favorite …", "my goal is …".
	selfNouns = map[string]string{
		"favorite": KindLike, "favourite": KindLike, "hobby": KindLike, "hobbies": KindLike, "passion": KindLike,
		"goal": KindGoal, "goals": KindGoal, "dream": KindGoal, "plan": KindGoal, "aim": KindGoal, "resolution": KindGoal,
		"job": KindIdentity, "profession": KindIdentity, "career": KindIdentity, "major": KindIdentity, "name": KindIdentity,
		"budget": KindLimit, "diet": KindHealth, "doctor": KindHealth, "allergy": KindHealth, "allergies": KindHealth,
		"home": KindLocation, "hometown": KindLocation, "city": KindLocation,
	}
	// Sentiments of "I find X …".
	findNegative = set("boring", "tedious", "annoying", "overwhelming", "ineffective", "uncomfortable", "unappealing",
		"distracting", "stressful", "useless", "unhelpful", "frustrating", "tiresome", "off-putting", "gross", "disgusting",
		"exhausting", "draining", "confusing", "pointless", "dull", "unpleasant", "irritating", "too", "hard", "difficult",
		"intimidating", "unbearable", "cheesy", "pretentious", "bland", "loud", "noisy", "crowded", "claustrophobic",
		"disorienting", "overstimulating", "unsettling", "nauseating", "uninspiring", "repetitive", "overwhelming", "harsh",
		"isolating", "impersonal", "stuffy", "tacky", "gimmicky", "uncomfortable", "painful", "dizzying")
	findPositive = set("relaxing", "helpful", "effective", "enjoyable", "fun", "engaging", "inspiring", "fascinating",
		"rewarding", "soothing", "calming", "comforting", "useful", "motivating", "therapeutic", "refreshing", "energizing",
		"satisfying", "easier", "best", "more", "fascinating", "exciting", "peaceful", "meditative", "invaluable")
	// Goals that are only this conversation's: "I want to know …".
	passingGoals = set("know", "ask", "check", "see", "confirm", "understand", "figure", "find", "get", "share", "discuss",
		"talk", "clarify", "hear", "make", "say", "mention", "tell", "thank", "add", "explore", "look", "start",
		"focus", "write", "create", "use", "try", "do", "have", "be", "go", "read", "watch", "compare", "follow", "decide", "choose", "pick", "recall", "remember", "think", "narrow", "wrap", "apply",
		"double-check", "verify", "note", "point", "put", "keep", "give", "continue", "move", "change", "improve", "organize",
		"plan", "prepare", "buy", "visit", "book", "take", "brainstorm", "come", "include", "calculate", "set")
	clauseBreakEN = set("because", "since", "so", "but", "as", "when", "while", "which", "that", "due", "especially",
		"unless", "if", "except", "though", "although", "whereas", "and", "or", "than", "like", "for", "with")
	objectSkip = set("to", "of", "in", "on", "at", "about", "the", "a", "an", "any", "some", "my", "our", "all", "being",
		"doing", "getting", "too", "much", "more", "most", "very", "really", "so", "this", "these", "those", "it", "them",
		"that", "not", "no", "by", "from", "over", "into", "when", "going", "having", "using", "up", "out", "things",
		"stuff", "kinds", "kind", "type", "types", "sort", "sorts", "lot", "lots", "way", "ways", "whenever", "possible",
		"his", "her", "their", "its", "me", "myself", "us", "ourselves", "such", "as", "other", "others", "anything",
		"everything", "something", "generally", "usually", "always", "never", "prefer", "avoid", "rather", "either",
		"one", "ones", "can", "could", "just", "also", "still", "i", "we", "is", "are", "be", "have", "has", "less")
)

// sizeWords say how much, not what: "a huge fan of jazz" is about jazz.
var sizeWords = set("big", "huge", "massive", "great", "die-hard", "avid", "total", "complete", "real", "true", "lifelong", "devoted")

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// selfEN reads one English sentence.
func selfEN(clause string) (Said, bool) {
	ws := tokensEN(clause)
	if len(ws) < 3 {
		return Said{}, false
	}
	for i := range ws {
		// The subject opens the sentence, after a few words at most, or a
		// part of it after a comma ("While drills help, I find them dull").
		if i > 8 && !ws[i-1].brk {
			continue
		}
		var s Said
		var ok bool
		// After a word that is not the sentence's opening, "I" begins a
		// clause about something else ("songs I have to have", "the
		// campaign I worked on").
		if i > 0 && !ws[i-1].brk && !openers[ws[i-1].w] {
			continue
		}
		switch ws[i].w {
		case "i", "we":
			s, ok = predicateEN(ws, i+1, "")
		case "my", "our":
			s, ok = possessiveEN(ws, i+1, ws[i].w == "our")
		default:
			continue
		}
		if ok {
			return s, true
		}
		if (ws[i].w == "i" || ws[i].w == "we") && !modals[next(ws, i)] {
			// "I follow X and avoid Y": the second verb has the same subject
			// (not after a modal: "I'll look into it and try to …").
			for k := i + 2; k < len(ws)-1; k++ {
				if ws[k].w == "and" || ws[k].w == "but" || ws[k].w == "so" {
					if s, ok := predicateEN(ws, k+1, ""); ok && s.Kind != KindIdentity {
						return s, true
					}
				}
				if subjects[ws[k].w] {
					break // another subject: "… make sure she has a great day and enjoys …"
				}
			}
		}
	}
	return Said{}, false
}

// possessiveEN reads "my son …", "my favorite cuisine is …", "my goal is …".
func possessiveEN(ws []word, j int, ours bool) (Said, bool) {
	// "my eldest son", "my son Tom": a few words to the noun.
	for k := j; k < min(len(ws), j+3); k++ {
		w := ws[k].w
		if familyNouns[w] {
			n := k + 1
			// A name after the noun: "my son Tom can't …"; not a clause
			// about them ("my cousin, who's a historian, took me …").
			for n < len(ws) && n < k+3 && !verbLike(ws[n].w) {
				if w := ws[n].w; w == "who" || w == "which" || w == "that" || ws[n-1].brk {
					return Said{}, false
				}
				n++
			}
			s, ok := predicateEN(ws, n, w)
			if !ok {
				return Said{}, false
			}
			return s, true
		}
		if kind, ok := selfNouns[w]; ok && !ours { // "our job is …": an organisation's
			// "my favorite cuisine is …", "my goal is …", "my hobbies
			// include …": the noun, a word or two, then the verb.
			rest, linked := k+1, false
			for ; rest < len(ws) && rest <= k+3; rest++ {
				if w := ws[rest].w; isCopula(w) || w == "include" || w == "includes" {
					rest, linked = rest+1, true
					break
				}
			}
			if !linked || next(ws, rest-1) == "about" {
				return Said{}, false // "my dream is about being chased": a dream, not a goal
			}
			matter := w
			if kind == KindLike && (w == "favorite" || w == "favourite") && k+1 < len(ws) {
				matter = "favorite " + ws[k+1].w
			}
			if kind == KindLocation {
				matter = "location"
			}
			if w == "name" {
				matter = "name"
			}
			return Said{Kind: kind, Matter: matter, Strength: strength(kind, 0)}, rest < len(ws)
		}
	}
	return Said{}, false
}

func isCopula(w string) bool { return w == "is" || w == "are" || w == "'s" || w == "am" }

func verbLike(w string) bool {
	switch w {
	case "is", "are", "'s", "has", "have", "can", "loves", "likes", "hates", "does", "do", "will", "would", "was", "were",
		"gets", "needs", "eats", "prefers", "enjoys", "avoids", "goes", "plays", "wants", "just", "also", "really", "never", "always":
		return true
	}
	return false
}

// predicate is a verb phrase being read, word by word from its subject: the
// word it is at, and what the words before its verb said.
type predicate struct {
	ws []word
	// at is the word being read.
	at int
	// whose is the family member or pet the sentence is about ("" for the
	// user).
	whose string
	// neg: not, never, no longer; habit: an adverb of habit ("usually",
	// "tend to"); perfect: "have" + a past participle.
	neg, habit, perfect bool
	// boost is how much the words raise or lower the statement's strength.
	boost float64
}

// predicateEN reads the verb phrase after the subject, from ws[j]: its
// kind, polarity, strength and matter. whose is the family member or pet
// the sentence is about ("" for the user).
func predicateEN(ws []word, j int, whose string) (Said, bool) {
	p := &predicate{ws: ws, at: j, whose: whose}
	for ; p.at < len(ws); p.at++ {
		j := p.at
		w := ws[j].w
		switch {
		case w == "not" || w == "never" || w == "no" && j+1 < len(ws) && ws[j+1].w == "longer":
			p.neg = true
			if w == "never" {
				p.habit = true
			}
			if w == "no" {
				p.at++
			}
		case habitAdverbsEN[w]:
			p.habit = true
		case adverbsEN[w] || hedgeEN[w] || w == "do" || w == "does" || w == "kind" && next(ws, j) == "of" || w == "sort" && next(ws, j) == "of":
			if w == "kind" || w == "sort" {
				p.at++
			}
		case w == "did" || w == "was" || w == "were" || w == "had" && next(ws, j) != "to" || w == "used":
			if w == "was" && (next(ws, j) == "born" || next(ws, j) == "diagnosed") {
				if next(ws, j) == "diagnosed" {
					return p.said(KindHealth, j+2, "")
				}
				return p.said(KindIdentity, 0, "origin")
			}
			return Said{}, false // the past: no longer, or a passing event
		case w == "will" || w == "shall" || w == "might" || w == "may" || w == "should" || w == "must" || w == "need" || w == "needs":
			return Said{}, false
		case w == "would":
			if n := next(ws, j); n == "rather" || n == "prefer" {
				return p.said(KindLike, j+2, "")
			}
			return Said{}, false
		case w == "can" || w == "could":
			if w == "could" {
				return Said{}, false
			}
			return p.can(j)
		case w == "tend" && next(ws, j) == "to":
			p.habit = true
			p.at++
		case w == "try":
			if next(ws, j) == "not" || next(ws, j) == "to" && next(ws, j+1) == "avoid" {
				p.neg = false
				return p.said(KindAvoid, j+3, "")
			}
			if next(ws, j) == "to" {
				p.habit = true
				p.at++
				continue
			}
			return Said{}, false
		case w == "am" || w == "are" || w == "'s" || w == "is":
			return p.copula(j + 1)
		case w == "have" || w == "has" || w == "'ve":
			switch next(ws, j) {
			case "been":
				return p.been(j + 2)
			case "got":
				p.at++
				j++
			case "to":
				return Said{}, false // "I have to go", "I have to admit": this moment's
			}
			if k := j + 1; k < len(ws) && pastParticiple(ws[k].w) {
				p.perfect = true
				continue
			}
			return p.have(j + 1)
		default:
			return p.verb(j)
		}
	}
	return Said{}, false
}

// said is the statement the verb phrase makes: of kind, about the words from
// ws[matterFrom] (or matter, when given), turned by a negation, weighed by
// the intensifiers and hedges around the word it is at.
func (p *predicate) said(kind string, matterFrom int, matter string) (Said, bool) {
	if p.neg {
		switch kind {
		case KindLike:
			kind = KindDislike
		case KindHabit:
			kind = KindAvoid
		case KindFear, KindDislike, KindAvoid:
			return Said{}, false // "I don't hate it": nothing standing
		}
	}
	if matter == "" {
		matter = objectEN(p.ws, matterFrom)
		if matter == "" {
			return Said{}, false
		}
	}
	if p.whose != "" {
		matter = p.whose + ": " + matter
	}
	if p.whose != "" && (kind == KindIdentity || kind == KindLocation || kind == KindGoal) {
		kind = KindFamily
	}
	for k := max(0, p.at-4); k < min(len(p.ws), p.at+8); k++ {
		switch {
		case boostEN[p.ws[k].w]:
			p.boost += 0.1
		case hedgeEN[p.ws[k].w]:
			p.boost -= 0.1
		}
	}
	negative := p.neg || kind == KindDislike || kind == KindAvoid || kind == KindFear
	return Said{Kind: kind, Matter: matter, Negative: negative, Strength: strength(kind, p.boost)}, true
}

// can reads "can" at ws[j]: what the user cannot eat or have (health),
// cannot stand (a dislike) or cannot do (a limit); "I can speak …".
func (p *predicate) can(j int) (Said, bool) {
	ws := p.ws
	k := j + 1
	if next(ws, j) != "not" {
		if next(ws, j) == "speak" {
			return p.said(KindIdentity, j+2, "")
		}
		return Said{}, false
	}
	k++
	for k < len(ws) && (adverbsEN[ws[k].w] || ws[k].w == "even") {
		k++
	}
	if k >= len(ws) {
		return Said{}, false
	}
	switch ws[k].w {
	case "eat", "have", "drink", "tolerate", "digest", "handle", "stomach", "process", "consume", "touch", "take":
		p.neg = false
		return p.said(KindHealth, k+1, "")
	case "stand", "bear":
		p.neg = false
		p.boost += 0.15
		return p.said(KindDislike, k+1, "")
	case "afford", "drive", "swim", "walk", "travel", "fly", "climb", "run", "kneel", "lift", "sit", "stand-up":
		p.neg = false
		return p.said(KindLimit, k+1, "")
	}
	return Said{}, false
}

// been reads "have been" from ws[j]: "I've been using basil in my cooking
// lately", "I've been running for two years" are what the user does these
// days, said as ongoing (weaker than "I usually …"); else a state, as after
// "am".
func (p *predicate) been(j int) (Said, bool) {
	ws := p.ws
	if j < len(ws) && strings.HasSuffix(ws[j].w, "ing") && !passingIng[ws[j].w] && !p.neg && ongoing(ws, j) {
		p.boost -= 0.1
		return p.said(KindHabit, j, "")
	}
	return p.copula(j)
}

// passingIng are the verbs of "I've been …ing" that tell of an attempt, a
// thought or a feeling of the moment, not of what the user does: "I've been
// trying to", "I've been thinking about", "I've been having trouble".
var passingIng = map[string]bool{
	"trying": true, "thinking": true, "meaning": true, "wondering": true, "looking": true, "having": true,
	"struggling": true, "feeling": true, "getting": true, "planning": true, "considering": true, "researching": true,
	"talking": true, "asking": true, "waiting": true, "dealing": true, "hoping": true, "worrying": true,
	"searching": true, "going": true, "hearing": true, "seeing": true, "noticing": true,
	"debating": true, "weighing": true, "contemplating": true, "preparing": true, "saving": true, "putting": true,
}

// ongoing reports a word after ws[from] that makes "I've been …ing" last:
// "lately", "recently", "these days", "for two years", "since May".
func ongoing(ws []word, from int) bool {
	for k := from + 1; k < len(ws); k++ {
		switch ws[k].w {
		case "lately", "recently", "nowadays", "since":
			return true
		case "these":
			if next(ws, k) == "days" {
				return true
			}
		case "for":
			for m := k + 1; m < min(len(ws), k+5); m++ {
				switch strings.TrimSuffix(ws[m].w, "s") {
				case "week", "month", "year", "while":
					return true
				}
			}
		}
	}
	return false
}

func next(ws []word, j int) string {
	if j+1 < len(ws) {
		return ws[j+1].w
	}
	return ""
}

func pastParticiple(w string) bool {
	switch w {
	case "moved", "lived", "loved", "hated", "avoided", "been", "always", "never", "started", "become", "grown", "relocated",
		"settled", "worked", "taught", "studied", "adopted", "switched", "stopped", "quit", "given", "gone", "cut", "developed":
		return true
	}
	return false
}

// copula reads "I am …" from ws[j]: a noun ("a nurse", "a huge fan of …"),
// where the user is from, or a state (copulaStates).
func (p *predicate) copula(j int) (Said, bool) {
	ws := p.ws
	for j < len(ws) && (adverbsEN[ws[j].w] || habitAdverbsEN[ws[j].w] || ws[j].w == "not" || ws[j].w == "never") && !(ws[j].w == "much" && next(ws, j) == "of") {
		if ws[j].w == "not" || ws[j].w == "never" {
			p.neg = true
		}
		j++
	}
	if j >= len(ws) {
		return Said{}, false
	}
	switch w := ws[j].w; {
	case w == "a" || w == "an":
		return p.copulaNoun(j)
	case w == "much" && next(ws, j) == "of":
		// "I'm not much of a reader".
		p.neg = false
		return p.said(KindDislike, j+3, "")
	case w == "from":
		if p.neg {
			return Said{}, false
		}
		return p.said(KindIdentity, 0, "origin")
	case w == "in" && next(ws, j) == "love":
		return p.said(KindLike, j+3, "")
	}
	kind, ok := copulaStates[ws[j].w]
	if !ok {
		return Said{}, false
	}
	if (kind == KindLike || kind == KindDislike) && aboutReaction(ws, j, kind) {
		return Said{}, false
	}
	return p.state(j, kind)
}

// copulaNoun reads "I'm a …" from the article at ws[j]: "I'm a nurse", "I'm
// a huge fan of …".
func (p *predicate) copulaNoun(j int) (Said, bool) {
	ws := p.ws
	k := j + 1
	for k < len(ws) && k < j+4 {
		switch ws[k].w {
		case "fan", "lover", "enthusiast", "buff", "fanatic", "junkie", "nut", "foodie", "geek", "nerd", "devotee":
			if next(ws, k) == "of" {
				return p.said(KindLike, k+2, "")
			}
			return p.said(KindLike, k+1, objectBefore(ws, j+1, k))
		case "bit", "little", "lot", "question", "quick", "few":
			return Said{}, false
		}
		if next(ws, k) == "" || clauseBreakEN[next(ws, k)] || next(ws, k) == "who" || next(ws, k) == "at" || next(ws, k) == "in" {
			break
		}
		k++
	}
	if p.neg {
		return Said{}, false
	}
	noun := objectEN(ws, j+1)
	if strings.Contains(" "+noun+" ", " assistant ") || strings.Contains(" "+noun+" ", " ai ") || strings.Contains(noun, "language model") {
		return Said{}, false // an assistant's words pasted as the user's
	}
	return p.said(KindIdentity, 0, "is "+noun)
}

// aboutReaction reports whether a liking or a dislike at ws[j] is about
// something of this conversation ("I'm interested in this", "I'm fond of
// your idea"); a liking of "the …" is taken for one too.
func aboutReaction(ws []word, j int, kind string) bool {
	k := j + 1
	for k < len(ws) && (ws[k].w == "in" || ws[k].w == "about" || ws[k].w == "on" || ws[k].w == "of" || ws[k].w == "with" ||
		ws[k].w == "to" || ws[k].w == "learning" || ws[k].w == "exploring" || ws[k].w == "trying" || ws[k].w == "knowing" ||
		ws[k].w == "hearing" || ws[k].w == "reading" || ws[k].w == "more" || ws[k].w == "getting" || ws[k].w == "out") {
		k++
	}
	return reaction(ws, k) || kind == KindLike && k < len(ws) && ws[k].w == "the"
}

// stateObjects are the words a state of copulaStates needs after it to say
// something of the user: "big on" or "a big fan", "crazy about", "nervous
// around", "careful with".
var stateObjects = map[string][]string{
	"big":     {"on", "fan"},
	"crazy":   {"about"},
	"anxious": {"about", "around"}, "nervous": {"about", "around"},
	"careful": {"with", "about", "of"}, "cautious": {"with", "about", "of"}, "wary": {"with", "about", "of"},
}

// state reads the state at ws[j] of copulaStates, of kind: "allergic to",
// "on a diet", "based in", "learning", "married".
func (p *predicate) state(j int, kind string) (Said, bool) {
	ws := p.ws
	w := ws[j].w
	if objects, ok := stateObjects[w]; ok && !slices.Contains(objects, next(ws, j)) {
		return Said{}, false
	}
	switch w {
	case "on":
		// "on a diet", "on a tight budget", "on medication".
		for k := j + 1; k < min(len(ws), j+4); k++ {
			switch ws[k].w {
			case "diet", "medication", "medications", "meds", "insulin":
				return p.said(KindHealth, j+1, "")
			case "budget":
				return p.said(KindLimit, 0, "budget")
			}
		}
		return Said{}, false
	case "based", "living":
		if p.neg {
			return Said{}, false
		}
		return p.said(KindLocation, 0, "location")
	case "working":
		if next(ws, j) == "on" || next(ws, j) == "towards" || next(ws, j) == "toward" {
			if reaction(ws, j+2) {
				return Said{}, false // "working on it"
			}
			return p.said(KindGoal, j+2, "")
		}
		return p.said(KindIdentity, 0, "occupation")
	case "learning", "studying", "training", "saving", "preparing", "planning", "trying", "raising", "expecting":
		if p.neg {
			return Said{}, false
		}
		if w == "trying" && (next(ws, j) != "to" || passingGoals[next(ws, j+1)] && next(ws, j+1) != "cut") {
			return Said{}, false
		}
		if w == "planning" && next(ws, j) == "to" && passingGoals[next(ws, j+1)] {
			return Said{}, false
		}
		return p.said(kind, j+1, "")
	case "tired", "sick", "fed", "bored":
		if p.neg {
			return Said{}, false
		}
	}
	if p.neg && (kind == KindHealth || kind == KindIdentity || kind == KindFamily) {
		return Said{}, false // "I'm not vegetarian": nothing to keep
	}
	matter := ""
	switch kind {
	case KindHealth:
		if w != "allergic" && w != "intolerant" && w != "sensitive" {
			matter = "diet " + w
		}
	case KindIdentity, KindFamily:
		matter = "is " + w
	}
	return p.said(kind, j+1, matter)
}

// have reads "I have …" from ws[j]: a family member or pet, a condition,
// a stance ("a fear of", "no interest in"), a home's part.
func (p *predicate) have(j int) (Said, bool) {
	ws := p.ws
	none, unknown := false, 0
	for k := j; k < min(len(ws), j+6); k++ {
		w := ws[k].w
		switch {
		case w == "no" || w == "zero" || w == "little":
			none = true
		case familyNouns[w]:
			if p.neg || none {
				return Said{}, false
			}
			return p.said(KindFamily, 0, "has "+strings.TrimSuffix(w, "s"))
		case homeNouns[w]:
			if p.neg || none {
				return Said{}, false
			}
			return p.said(KindIdentity, 0, "has "+w)
		case stanceNouns[w] != "":
			kind := stanceNouns[w]
			if w == "soft" && next(ws, k) != "spot" || w == "thing" && next(ws, k) != "for" && next(ws, k) != "about" {
				return Said{}, false
			}
			low := w == "tolerance" && k > 0 && (ws[k-1].w == "low" || ws[k-1].w == "zero")
			if none || p.neg || low {
				if kind != KindLike {
					return Said{}, false
				}
				kind = KindDislike
			}
			start := k + 1
			for start < len(ws) && (ws[start].w == "of" || ws[start].w == "to" || ws[start].w == "for" || ws[start].w == "in" || ws[start].w == "spot" || ws[start].w == "with" || ws[start].w == "about") {
				start++
			}
			matter := ""
			if kind == KindHealth && start >= len(ws) {
				matter = "health " + w
			}
			if kind == KindLimit {
				matter = w
			}
			return p.said(kind, start, matter)
		case w == "a" || w == "an" || w == "the" || isNumber(w) || w == "two" || w == "three" || w == "one" || boostEN[w] || hedgeEN[w] ||
			w == "mild" || w == "serious" || w == "real" || w == "big" || w == "huge" || w == "deep" || w == "small" || w == "tiny" ||
			w == "chronic" || w == "slight" || w == "lifelong" || w == "irrational" || w == "genuine" || w == "four" || w == "lactose" ||
			w == "gluten" || w == "food" || w == "peanut" || w == "nut" || w == "shellfish" || w == "dairy" || w == "pet" || w == "young" ||
			w == "little" || w == "old" || w == "older" || w == "younger" || w == "elderly" || w == "teenage" || w == "newborn":
		default:
			// An adjective or two before the noun: "an extreme aversion",
			// "a deep-seated fear".
			if unknown++; unknown > 2 || verbLike(w) || clauseBreakEN[w] || ws[k].brk {
				return Said{}, false
			}
		}
	}
	return Said{}, false
}

// verb reads a lexical verb at ws[j]: a stance, a place, a goal, a habit.
func (p *predicate) verb(j int) (Said, bool) {
	ws := p.ws
	lemma, form := lemmaEN(ws[j].w)
	if st, ok := stanceVerbs[lemma]; ok && (form != "past" || p.perfect) && form != "ing" {
		return p.stance(j, lemma, st.kind, st.boost)
	}
	switch lemma {
	case "mind":
		if p.neg {
			return p.said(KindLike, j+1, "")
		}
		return Said{}, false
	case "live", "reside":
		return p.live(j, form)
	case "move", "relocate":
		if p.neg || next(ws, j) != "to" && next(ws, j) != "back" && next(ws, j) != "out" {
			return Said{}, false
		}
		return p.said(KindLocation, 0, "location")
	case "grow":
		if next(ws, j) == "up" {
			return p.said(KindIdentity, 0, "origin")
		}
		return Said{}, false
	case "work":
		if p.neg {
			return Said{}, false
		}
		switch next(ws, j) {
		case "as", "at", "in", "for", "from":
			return p.said(KindIdentity, 0, "occupation")
		case "out":
			return p.said(KindHabit, j+2, "")
		}
		if !p.habit {
			return Said{}, false
		}
	case "teach", "study":
		if form == "past" && !p.perfect || p.neg {
			return Said{}, false
		}
		return p.said(KindIdentity, j+1, "")
	case "want", "hope", "plan", "aim", "intend", "dream", "wish":
		return p.goal(j, lemma, form)
	case "follow":
		// "I follow a strict vegan diet".
		if keepsDiet(ws, j) {
			if p.neg || form == "past" && !p.perfect {
				return Said{}, false
			}
			return p.said(KindHealth, j+1, "")
		}
	case "speak":
		if p.neg || form == "past" {
			return Said{}, false
		}
		return p.said(KindIdentity, j+1, "")
	case "own", "keep":
		if form == "past" && !p.perfect {
			return Said{}, false
		}
		if lemma == "keep" && keepsDiet(ws, j) && !p.neg {
			return p.said(KindHealth, j+1, "") // "we keep kosher"
		}
		for k := j + 1; k < min(len(ws), j+5); k++ {
			if familyNouns[ws[k].w] || homeNouns[ws[k].w] {
				return p.said(KindFamily, 0, "has "+strings.TrimSuffix(ws[k].w, "s"))
			}
		}
		if !p.habit {
			return Said{}, false
		}
	case "find":
		return p.find(j)
	}
	return p.activity(j, lemma, form)
}

// stance reads a verb of stanceVerbs at ws[j]: "I love hiking", "I'd prefer
// not to", "I avoid dairy".
func (p *predicate) stance(j int, lemma, kind string, boost float64) (Said, bool) {
	ws := p.ws
	p.boost += boost
	k := j + 1
	if reaction(ws, k) || kind == KindLike && next(ws, j) == "the" {
		// "I like the template": something of this conversation (what
		// one likes in general is rarely said with "the").
		return Said{}, false
	}
	if lemma == "prefer" && next(ws, j) == "not" {
		return p.said(KindAvoid, j+3, "")
	}
	if kind == KindDislike && p.neg && (lemma == "mind") {
		return Said{}, false
	}
	return p.said(kind, k, "")
}

// live reads "live" at ws[j]: where the user lives ("in", "near"), or with
// whom.
func (p *predicate) live(j int, form string) (Said, bool) {
	if (form == "past" && !p.perfect) || p.neg {
		return Said{}, false
	}
	switch next(p.ws, j) {
	case "in", "on", "near", "outside", "at", "by", "close", "downtown":
		return p.said(KindLocation, 0, "location")
	case "with", "alone", "together":
		return p.said(KindFamily, j+2, "lives with")
	}
	return Said{}, false
}

// goal reads "want to", "hope to", "plan to", "dream of" at ws[j]; what the
// user wants of this conversation ("I want to know") is no goal.
func (p *predicate) goal(j int, lemma, form string) (Said, bool) {
	ws := p.ws
	if p.neg || form == "past" || next(ws, j) != "to" && !(lemma == "dream" && next(ws, j) == "of") {
		return Said{}, false
	}
	if passingGoals[next(ws, j+1)] {
		return Said{}, false
	}
	return p.said(KindGoal, j+2, "")
}

// find reads "I find X boring": a sentiment of findNegative or findPositive
// after the verb at ws[j]. "I find that …" and "I find it fascinating that
// the Mellotron …" (a reaction to what was said) are no statements.
func (p *predicate) find(j int) (Said, bool) {
	ws := p.ws
	if next(ws, j) == "that" {
		return Said{}, false
	}
	if next(ws, j) == "it" {
		for k := j + 2; k < min(len(ws), j+6); k++ {
			if ws[k].w == "that" || ws[k].w == "how" {
				return Said{}, false
			}
		}
	}
	for k := j + 1; k < min(len(ws), j+10); k++ {
		a := ws[k].w
		if findNegative[a] {
			p.boost += 0.05
			return p.said(KindDislike, j+1, objectBefore(ws, j+1, k))
		}
		if findPositive[a] {
			if p.neg || ws[k-1].w == "less" || ws[k-1].w == "not" {
				return p.said(KindDislike, j+1, objectBefore(ws, j+1, k))
			}
			return p.said(KindLike, j+1, objectBefore(ws, j+1, k))
		}
	}
	return Said{}, false
}

// activity reads a verb of activityVerbs at ws[j]: in the present tense, a
// habit; negated, what the user stays away from.
func (p *predicate) activity(j int, lemma, form string) (Said, bool) {
	if !activityVerbs[lemma] {
		return Said{}, false
	}
	if form == "past" && !p.perfect || form == "ing" || p.perfect && p.neg {
		// "I've never played a cooperative game": an experience not had
		// yet, not something kept away from.
		return Said{}, false
	}
	// A present-tense activity is a habit; an episode ("I go to Paris
	// tomorrow") is no habit, and most plain ones are read only with an
	// adverb of frequency or a negation.
	if !p.habit && !p.neg && !frequencyAfter(p.ws, j+1) {
		return Said{}, false
	}
	return p.said(KindHabit, j+1, "")
}

// frequencyAfter reports whether the words after j say how often: "every
// day", "twice a week", "on weekends", "a lot".
func frequencyAfter(ws []word, j int) bool {
	for k := j; k < len(ws); k++ {
		switch ws[k].w {
		case "every", "daily", "weekly", "weekends", "mornings", "evenings", "nightly", "regularly", "twice", "often",
			"religiously", "usually", "always", "whenever":
			return true
		case "times":
			return next(ws, k) == "a" || next(ws, k) == "per"
		case "lot":
			return k > 0 && ws[k-1].w == "a" && (k+1 == len(ws) || clauseBreakEN[ws[k+1].w] || ws[k+1].w == "of")
		}
		if clauseBreakEN[ws[k].w] && ws[k].w != "and" {
			return false
		}
	}
	return false
}

// lemmaEN is a verb's base form and whether the form was past, -ing or
// present.
func lemmaEN(w string) (string, string) {
	switch w {
	case "ate":
		return "eat", "past"
	case "drank":
		return "drink", "past"
	case "went":
		return "go", "past"
	case "flew":
		return "fly", "past"
	case "rode":
		return "ride", "past"
	case "wore":
		return "wear", "past"
	case "swam":
		return "swim", "past"
	case "ran":
		return "run", "past"
	case "grew":
		return "grow", "past"
	case "found":
		return "find", "past"
	case "taught":
		return "teach", "past"
	case "kept":
		return "keep", "past"
	case "spent":
		return "spend", "past"
	case "bought":
		return "buy", "past"
	case "spoke":
		return "speak", "past"
	case "took":
		return "take", "past"
	case "read":
		return "read", "present"
	}
	if _, ok := stanceVerbs[w]; ok || activityVerbs[w] {
		return w, "present"
	}
	try := func(base, form string) (string, string, bool) {
		if _, ok := stanceVerbs[base]; ok || activityVerbs[base] || isOtherVerb(base) {
			return base, form, true
		}
		return "", "", false
	}
	for _, c := range [...]struct{ suf, add, form string }{
		{"ies", "y", "present"}, {"es", "", "present"}, {"es", "e", "present"}, {"s", "", "present"},
		{"ied", "y", "past"}, {"ed", "", "past"}, {"ed", "e", "past"}, {"d", "", "past"},
		{"ing", "", "ing"}, {"ing", "e", "ing"},
	} {
		if base, ok := strings.CutSuffix(w, c.suf); ok && base != "" {
			if l, f, ok := try(base+c.add, c.form); ok {
				return l, f
			}
			// A doubled consonant: "planned", "shopping".
			if n := len(base); n > 2 && base[n-1] == base[n-2] {
				if l, f, ok := try(base[:n-1], c.form); ok {
					return l, f
				}
			}
		}
	}
	return w, "present"
}

func isOtherVerb(w string) bool {
	switch w {
	case "live", "reside", "move", "relocate", "grow", "want", "hope", "plan", "aim", "intend", "dream", "wish", "find",
		"mind", "teach", "study", "speak", "own", "keep", "work":
		return true
	}
	return false
}

// objectEN is the matter of the words from ws[j]: its first content words,
// up to the end of the phrase.
func objectEN(ws []word, j int) string {
	var out []string
	for k := j; k < len(ws) && len(out) < 3; k++ {
		w := ws[k].w
		if clauseBreakEN[w] && len(out) > 0 {
			break
		}
		if !(objectSkip[w] || clauseBreakEN[w] || boostEN[w] || hedgeEN[w] || habitAdverbsEN[w] || sizeWords[w]) {
			out = append(out, singular(w))
		}
		if ws[k].brk && len(out) > 0 {
			break
		}
	}
	return strings.Join(out, " ")
}

// objectBefore is the matter of the words from ws[from] to ws[to].
func objectBefore(ws []word, from, to int) string {
	return objectEN(ws[:to], from)
}

func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

func isNumber(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// reaction reports an object that is something of this conversation, not
// of the user's life: "I like the idea of …", "I appreciate the tips", "I
// love your suggestion", "I like those prompts", "I love it".
func reaction(ws []word, k int) bool {
	if k >= len(ws) {
		return true
	}
	switch ws[k].w {
	case "this", "that", "these", "those", "it", "its", "your", "them", "all", "both", "everything", "what", "how", "you",
		"hers", "his", "theirs", "mine", "yours", "ours", "one":
		return true
	case "any", "some", "none", "either", "neither", "each":
		return next(ws, k) == "of"
	case "the":
		// "the idea of", "the mason jar salad idea", "the second one".
		for n := k + 1; n < min(len(ws), k+6); n++ {
			if conversational[ws[n].w] {
				return true
			}
			if ws[n].brk || clauseBreakEN[ws[n].w] || ws[n].w == "of" {
				break
			}
		}
	}
	return false
}

// openers may stand before the subject of a statement: the sentence's
// first words ("Also, I …", "Honestly I …", "By the way, I …").
var openers = set("also", "and", "but", "so", "actually", "honestly", "really", "well", "now", "yes", "yeah", "oh", "ok", "okay",
	"plus", "anyway", "lately", "recently", "personally", "basically", "still", "though", "then", "because", "since", "as",
	"while", "hi", "hello", "hey", "way", "btw", "generally", "usually", "mostly", "nowadays", "currently", "also", "alright",
	"see", "thanks", "sure", "definitely", "absolutely", "frankly", "truthfully", "otherwise", "however", "besides", "although",
	"um", "hmm", "right", "cool", "great", "first", "firstly", "second", "finally", "lol", "haha", "too", "both", "and", "side",
	"note", "fact", "general", "today", "these", "days", "point")

// conversational are what a conversation is made of: a reply's ideas,
// tips and options.
var conversational = set("idea", "ideas", "tip", "tips", "option", "options", "suggestion", "suggestions", "recipe", "recipes",
	"list", "plan", "sound", "look", "way", "fact", "approach", "first", "second", "third", "fourth", "last", "one", "ones",
	"advice", "info", "information", "answer", "answers", "response", "explanation", "breakdown", "example", "examples",
	"detail", "details", "help", "question", "concept", "name", "names", "title", "titles", "description", "format",
	"structure", "prompt", "prompts", "point", "points", "thought", "thoughts", "feedback", "recommendation",
	"recommendations", "insight", "insights", "overview", "summary", "outline", "script", "draft", "story", "itinerary",
	"menu", "combination", "variety", "selection", "resources", "resource", "links", "link", "article", "guide", "steps")

// keepsDiet reports a diet after the verb at j: "follow a strict vegan
// diet", "keep kosher".
func keepsDiet(ws []word, j int) bool {
	for k := j + 1; k < min(len(ws), j+6); k++ {
		switch ws[k].w {
		case "diet", "kosher", "halal", "regimen", "lifestyle":
			return true
		}
	}
	return false
}

// modals make what follows a possibility, a plan of the moment or a wish,
// not a standing fact.
var modals = set("will", "would", "might", "may", "could", "should", "must", "shall", "need", "can")

// subjects are the pronouns that open a clause of their own.
var subjects = set("i", "we", "he", "she", "they", "it", "you", "there")
