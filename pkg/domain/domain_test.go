package domain_test

import (
	"slices"
	"testing"

	"github.com/recallhq/recall/pkg/domain"
)

func TestOf(t *testing.T) {
	t.Parallel()
	const (
		food, travel, lodging, health  = domain.Food, domain.Travel, domain.Lodging, domain.Health
		sports, entertainment, reading = domain.Sports, domain.Entertainment, domain.Reading
		music, arts, shopping, home    = domain.Music, domain.Arts, domain.Shopping, domain.Home
		work, learning, family, pets   = domain.Work, domain.Learning, domain.Family, domain.Pets
		money, tech, nature, vehicles  = domain.Money, domain.Tech, domain.Nature, domain.Vehicles
	)
	for _, c := range []struct {
		text string
		want []domain.Domain // all of them, among others
	}{
		// A standing statement and a later message with no word in common
		// meet in a domain.
		{"I have an intense fear of flying", []domain.Domain{travel}},
		{"what's the best way to get around the US?", []domain.Domain{travel}},
		{"best way to get around between US cities", []domain.Domain{travel}},
		{"my son can't have any nuts", []domain.Domain{food}},
		{"what should I bake for the school fair?", []domain.Domain{food}},
		{"I avoid hotels in busy downtown areas", []domain.Domain{lodging}},
		{"recommend hotels in New York", []domain.Domain{lodging}},
		{"I despise open-concept floor plans", []domain.Domain{home}},
		{"I have no interest in motorsports", []domain.Domain{sports}},
		{"I strongly prefer not to read self-help books", []domain.Domain{reading}},
		{"I'm vegetarian", []domain.Domain{food}},
		{"Can you suggest a quick dinner recipe?", []domain.Domain{food}},
		{"I drink way too much coffee", []domain.Domain{food}},
		{"We booked a flight to Tokyo", []domain.Domain{travel}},
		{"I get seasick on boats", []domain.Domain{travel}},
		{"Do I need a visa for Vietnam?", []domain.Domain{travel}},
		{"We stayed at a lovely bed and breakfast", []domain.Domain{lodging}},
		{"I'd rather stay in a hostel", []domain.Domain{lodging}},
		{"I have asthma", []domain.Domain{health}},
		{"I take medication for blood pressure", []domain.Domain{health}},
		{"Should I see a doctor about this rash?", []domain.Domain{health}},
		{"I go to the gym every morning", []domain.Domain{sports}},
		{"I play tennis on weekends", []domain.Domain{sports}},
		{"Recommend a thriller movie", []domain.Domain{entertainment}},
		{"I love board games", []domain.Domain{entertainment}},
		{"I'm reading a novel by a Japanese author", []domain.Domain{reading}},
		{"I belong to a book club", []domain.Domain{reading}},
		{"I play the guitar", []domain.Domain{music}},
		{"We're going to a concert next week", []domain.Domain{music}},
		{"I enjoy painting watercolors", []domain.Domain{arts}},
		{"I'm into photography", []domain.Domain{arts}},
		{"I need a dress for a wedding", []domain.Domain{shopping}},
		{"Where can I buy cheap sneakers?", []domain.Domain{shopping}},
		{"Our kitchen needs remodeling", []domain.Domain{home}},
		{"I need a new sofa", []domain.Domain{home}},
		{"I'm thinking of quitting my job", []domain.Domain{work}},
		{"My coworkers are annoying", []domain.Domain{work}},
		{"I'm studying for my final exams", []domain.Domain{learning}},
		{"I want to learn Japanese", []domain.Domain{learning}},
		{"My daughter starts college in September", []domain.Domain{learning, family}},
		{"My husband snores", []domain.Domain{family}},
		{"We have three kids", []domain.Domain{family}},
		{"I have two cats", []domain.Domain{pets}},
		{"What should I feed my puppy?", []domain.Domain{pets}},
		{"I'm trying to pay off my credit card debt", []domain.Domain{money}},
		{"Should I buy stocks or bonds?", []domain.Domain{money}},
		{"My phone battery dies quickly", []domain.Domain{tech}},
		{"Which laptop is best for programming?", []domain.Domain{tech}},
		{"I love hiking in the mountains", []domain.Domain{nature}},
		{"It's been raining all week", []domain.Domain{nature}},
		{"My car broke down on the highway", []domain.Domain{vehicles}},
		{"I don't have a driver's license", []domain.Domain{vehicles}},
		{"我不吃辣", []domain.Domain{food}},
		{"推荐几道川菜", []domain.Domain{food}},
		{"我对花生过敏", []domain.Domain{food}},
		{"推荐几道菜", []domain.Domain{food}},
		{"我害怕坐飞机", []domain.Domain{travel}},
		{"周末去哪儿玩", []domain.Domain{travel}},
		{"晚饭吃什么好", []domain.Domain{food}},
		{"我下个月去日本旅游", []domain.Domain{travel}},
		{"帮我订一家酒店", []domain.Domain{lodging}},
		{"我最近总是失眠", []domain.Domain{health}},
		{"我感冒了", []domain.Domain{health}},
		{"我每天早上跑步", []domain.Domain{sports}},
		{"推荐一部好看的电影", []domain.Domain{entertainment}},
		{"推荐几本书", []domain.Domain{reading}},
		{"我在学弹钢琴", []domain.Domain{music}},
		{"我想买一件外套", []domain.Domain{shopping}},
		{"我刚搬家", []domain.Domain{home}},
		{"我想换工作", []domain.Domain{work}},
		{"我在学英语", []domain.Domain{learning}},
		{"我老婆怀孕了", []domain.Domain{family}},
		{"我养了一只猫", []domain.Domain{pets}},
		{"我的信用卡欠款很多", []domain.Domain{money}},
		{"我的手机坏了", []domain.Domain{tech}},
		{"今天下雨了", []domain.Domain{nature}},
		{"我在学开车", []domain.Domain{vehicles}},
		// Chinese and English in one message.
		{"我想订一个hotel", []domain.Domain{lodging}},
	} {
		got := domain.Of(c.text)
		for _, d := range c.want {
			if !got.Has(d) {
				t.Errorf("Of(%q) = [%s], want %s in it (scores %v)", c.text, got, d, domain.Scores(c.text))
			}
		}
	}
}

// TestOfNothing: what is said about the conversation itself, and small
// talk, is about no area of life.
func TestOfNothing(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"I think that's fine, thanks",
		"Okay, sounds good to me.",
		"Can you explain that again?",
		"What time is it?",
		"I don't understand what you mean",
		"Could you make it shorter?",
		"Let me think about it",
		"Yes, please go ahead",
		"That's interesting, tell me more",
		"Please answer in English",
		"Sorry, I was wrong",
		"Give me three options",
		"Hello, how are you today?",
		"Can you summarize the main points?",
		"I changed my mind.",
		"I'll get back to you later.",
		"Write it as a bulleted list.",
		"Honestly, I don't care.",
		"Remind me what we said earlier.",
		"",
		"   ",
		"!!!",
		"好的，谢谢",
		"我不太明白你的意思",
		"你说得对",
		"请再说一遍",
		"没问题",
		"我觉得可以",
		"我们聊点别的吧",
		"你能再解释一下吗",
		// The language of a reply is no learning.
		"请用中文回答",
		"Please reply in Spanish",
	} {
		if got := domain.Of(text); !got.Empty() {
			t.Errorf("Of(%q) = [%s], want none (scores %v)", text, got, domain.Scores(text))
		}
	}
}

// TestWords: inflections, irregular forms, phrases, possessives,
// hyphenation and compounds reach the lexicon's words.
func TestWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want domain.Domain
	}{
		{"flights", domain.Travel},
		{"flying", domain.Travel},
		{"flew", domain.Travel},
		{"ate", domain.Food},
		{"baking", domain.Food},
		{"children", domain.Family},
		{"ice cream", domain.Food},
		{"air travel", domain.Travel},
		{"floor plans", domain.Home},
		{"driver's", domain.Vehicles},
		{"HOTEL", domain.Lodging},
		{"Hotels’", domain.Lodging},
		{"self-help books", domain.Reading},
		{"coworker", domain.Work},
		{"motorsports", domain.Sports},
		{"smartphone", domain.Tech},
		{"飞机", domain.Travel},
		{"醫院", domain.Health},
	} {
		if got := domain.Of(c.text); !got.Has(c.want) {
			t.Errorf("Of(%q) = [%s], want %s in it", c.text, got, c.want)
		}
	}
	// Forms that a rule would cut into another word stay apart: "changed"
	// is no Chang river, "later" no back muscle, "booked" no book to read.
	for _, c := range []struct {
		text string
		not  domain.Domain
	}{
		{"changed", domain.Nature},
		{"later", domain.Health},
		{"booked", domain.Reading},
		{"don't", domain.Shopping},
		{"飞快", domain.Travel},
	} {
		if got := domain.Of(c.text); got.Has(c.not) {
			t.Errorf("Of(%q) = [%s], want no %s", c.text, got, c.not)
		}
	}
}

func TestSet(t *testing.T) {
	t.Parallel()
	s := domain.SetOf(domain.Food, domain.Health)
	if !s.Has(domain.Food) || !s.Has(domain.Health) || s.Has(domain.Travel) {
		t.Fatalf("SetOf = %v", s.Names())
	}
	if got := s.String(); got != "food,health" {
		t.Errorf("String = %q", got)
	}
	back, ok := domain.ParseSet(s.String())
	if !ok || back != s {
		t.Errorf("ParseSet(%q) = %v, %v", s.String(), back, ok)
	}
	if _, ok := domain.ParseSet("food,cooking"); ok {
		t.Error("ParseSet accepted an unknown name")
	}
	if !s.Meets(domain.SetOf(domain.Health)) || s.Meets(domain.SetOf(domain.Travel)) {
		t.Error("Meets")
	}
	if (domain.Set(0)).Names() != nil || !domain.Set(0).Empty() {
		t.Error("empty set")
	}
	if got := domain.SetOf(domain.All()...).Domains(); !slices.Equal(got, domain.All()) {
		t.Errorf("Domains = %v", got)
	}
}

// TestNames: the stable names are unique and parse back; every domain has
// labels in both languages.
func TestNames(t *testing.T) {
	t.Parallel()
	if domain.Count > 32 {
		t.Fatalf("%d domains do not fit a Set", domain.Count)
	}
	seen := map[string]bool{}
	for _, d := range domain.All() {
		name := d.String()
		if seen[name] {
			t.Errorf("name %q twice", name)
		}
		seen[name] = true
		if back, ok := domain.Parse(name); !ok || back != d {
			t.Errorf("Parse(%q) = %v, %v", name, back, ok)
		}
		if d.Label("en") == "" || d.Label("zh-CN") == "" || d.Label("en") == d.Label("zh") {
			t.Errorf("%s: labels %q, %q", name, d.Label("en"), d.Label("zh"))
		}
	}
	if got := domain.Domain(200).String(); got != "domain(200)" {
		t.Errorf("String of an unknown domain = %q", got)
	}
}

// TestNewLexicon: a lexicon built from words scores text as the embedded
// one does.
func TestNewLexicon(t *testing.T) {
	t.Parallel()
	var food, travel domain.Vector
	food[domain.Food] = 1
	travel[domain.Travel] = 0.8
	l := domain.NewLexicon(
		map[string]domain.Vector{"soup": food, "air travel": travel, "travel": {}},
		map[string]domain.Vector{"汤": food},
	)
	if got := l.Of("Two soups, please"); got != domain.SetOf(domain.Food) {
		t.Errorf("Of = %v", got.Names())
	}
	if got := l.Scores("I hate air travel"); got[domain.Travel] != 0.8 {
		t.Errorf("phrase: %v", got)
	}
	if got := l.Of("我想喝汤"); got != domain.SetOf(domain.Food) {
		t.Errorf("Chinese: %v", got.Names())
	}
	if en, zh := l.Size(); en < 3 || zh != 1 {
		t.Errorf("Size = %d, %d", en, zh)
	}
}

// TestExplain: the words that add weights, in order, as the lexicon found
// them, and their weights add up to the text's Scores.
func TestExplain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text  string
		words []string
	}{
		{"We booked two Hotels and an air-travel pass", []string{"hotels", "air-travel"}},
		{"I love motorsports.", []string{"motor", "sports"}},
		{"我害怕坐飞机", []string{"飞机"}},
	} {
		ms := domain.Explain(c.text)
		var got []string
		var sum domain.Vector
		for _, m := range ms {
			for d, x := range m.Weights {
				sum[d] += x
			}
			got = append(got, m.Text)
		}
		for _, w := range c.words {
			if !slices.Contains(got, w) {
				t.Errorf("Explain(%q): words %q, want %q among them", c.text, got, w)
			}
		}
		scores := domain.Scores(c.text)
		for d := range sum {
			if diff := sum[d] - scores[d]; diff > 1e-4 || diff < -1e-4 {
				t.Errorf("Explain(%q) adds up to %v, Scores %v", c.text, sum, scores)
				break
			}
		}
	}
}
