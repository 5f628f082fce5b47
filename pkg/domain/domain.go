// Package domain tells which areas of life a text is about (food, travel,
// health, family ...), in English and Chinese, without a model.
//
// A user's standing statement ("I'm scared of flying", "my son can't have
// nuts", "我不吃辣") has to reach the prompt when a later message bears on it
// even if the two share no word ("how do I get from Boston to Denver?",
// "what should I bake for the school fair?", "推荐几道川菜"). Both are mapped
// to the life domains they touch, and a statement whose domains meet the
// message's is a candidate.
//
// The words' domains are a lexicon generated from WordNet 3.0 (English) and
// CC-CEDICT (Chinese, through its English glosses) by tools/gendomains, and
// embedded here (SOURCES.md says what and how to regenerate). The lexicon is
// loaded once, on the first call that needs it (about a fifth of a second,
// 10 MB that the garbage collector does not scan); nothing here reads a file
// or the network at run time. Scoring a message of a few hundred characters
// takes some tens of microseconds and allocates nothing.
//
// A text's weight in a domain is the sum of its words' (Scores), so Of, which
// reports the domains at Threshold or more, suits a statement or a message;
// over a long text small weights add up, and a caller may rather take the
// heaviest domains of Scores.
package domain

import (
	"strconv"
	"strings"
)

// Domain is one area of life. Its value is its bit in a Set; the values are
// stable (stored sets depend on them), so a new domain is added at the end.
type Domain uint8

// The domains. Each one's doc says what it covers; the boundaries follow
// what a standing preference is usually about, not a taxonomy.
const (
	// Food is eating and drinking: dishes, ingredients, cooking and baking,
	// diets, drinks, restaurants.
	Food Domain = iota
	// Travel is going places: trips, holidays, flights, trains, public
	// transport, getting around, sightseeing, places to visit.
	Travel
	// Lodging is where one stays away from home: hotels, hostels, rentals,
	// camping sites.
	Lodging
	// Health is the body and mind's condition: illness, allergies, medicine,
	// doctors, injuries, sleep, mental health.
	Health
	// Sports is exercise and sport: fitness, training, games played as
	// sport, athletes, teams.
	Sports
	// Entertainment is films, television, shows, theatre, games, parties
	// and going out.
	Entertainment
	// Reading is books and literature: novels, poetry, authors, libraries.
	Reading
	// Music is music: songs, instruments, genres, concerts, musicians.
	Music
	// Arts is the visual arts and crafts: painting, drawing, photography,
	// sculpture, museums, handicrafts.
	Arts
	// Shopping is buying and wearing: clothes, fashion, shoes, jewellery,
	// beauty and cosmetics, shops.
	Shopping
	// Home is where one lives: the house and its rooms, furniture, appliances,
	// housework, the garden, moving house.
	Home
	// Work is jobs and careers: the office, colleagues, employers, business,
	// meetings.
	Work
	// Learning is study: school, university, courses, exams, subjects,
	// languages.
	Learning
	// Family is relatives and relationships: children, parents, partners,
	// weddings, friends.
	Family
	// Pets is animals kept at home: dogs, cats, their food and care.
	Pets
	// Money is personal finance: banking, saving, budgets, investment, debt,
	// prices and taxes.
	Money
	// Tech is computers, phones, software, the internet and gadgets.
	Tech
	// Nature is the outdoors: wildlife, plants, landscapes, weather, hiking
	// and camping.
	Nature
	// Vehicles is motoring: cars, motorbikes, driving, their upkeep, motor
	// sport.
	Vehicles

	// count is the number of domains; not a domain.
	count
)

// Count is the number of domains.
const Count = int(count)

// names are the domains' stable names, their labels in English and Chinese.
var names = [count]struct{ name, en, zh string }{
	Food:          {"food", "food and drink", "饮食"},
	Travel:        {"travel", "travel and transport", "出行旅游"},
	Lodging:       {"lodging", "accommodation", "住宿"},
	Health:        {"health", "health", "健康"},
	Sports:        {"sports", "sports and fitness", "运动健身"},
	Entertainment: {"entertainment", "entertainment", "娱乐"},
	Reading:       {"reading", "books and reading", "阅读"},
	Music:         {"music", "music", "音乐"},
	Arts:          {"arts", "arts and crafts", "艺术手工"},
	Shopping:      {"shopping", "shopping and fashion", "购物穿搭"},
	Home:          {"home", "home and garden", "家居"},
	Work:          {"work", "work and career", "工作"},
	Learning:      {"learning", "study and learning", "学习"},
	Family:        {"family", "family and relationships", "家庭关系"},
	Pets:          {"pets", "pets", "宠物"},
	Money:         {"money", "money and finance", "理财"},
	Tech:          {"tech", "technology", "科技数码"},
	Nature:        {"nature", "nature and the outdoors", "自然户外"},
	Vehicles:      {"vehicles", "cars and motoring", "汽车"},
}

// All returns every domain in order.
func All() []Domain {
	out := make([]Domain, count)
	for i := range out {
		out[i] = Domain(i)
	}
	return out
}

// String is the domain's stable name ("food").
func (d Domain) String() string {
	if d >= count {
		return "domain(" + strconv.Itoa(int(d)) + ")"
	}
	return names[d].name
}

// Label is the domain's name for people, in Chinese when lang starts with
// "zh", in English otherwise.
func (d Domain) Label(lang string) string {
	if d >= count {
		return d.String()
	}
	if strings.HasPrefix(lang, "zh") {
		return names[d].zh
	}
	return names[d].en
}

// Parse returns the domain of a stable name.
func Parse(name string) (Domain, bool) {
	for i, n := range names {
		if n.name == name {
			return Domain(i), true
		}
	}
	return 0, false
}

// Set is a set of domains, one bit per domain; its zero value is empty. It
// is small enough to store beside a statement (an int in the database).
type Set uint32

// SetOf returns the set of the given domains.
func SetOf(ds ...Domain) Set {
	var s Set
	for _, d := range ds {
		s = s.With(d)
	}
	return s
}

// With returns s with d added.
func (s Set) With(d Domain) Set { return s | 1<<d }

// Has reports whether d is in s.
func (s Set) Has(d Domain) bool { return s&(1<<d) != 0 }

// Meets reports whether s and o share a domain.
func (s Set) Meets(o Set) bool { return s&o != 0 }

// Empty reports whether s has no domain.
func (s Set) Empty() bool { return s == 0 }

// Domains returns the domains of s in order.
func (s Set) Domains() []Domain {
	var out []Domain
	for d := Domain(0); d < count; d++ {
		if s.Has(d) {
			out = append(out, d)
		}
	}
	return out
}

// Names returns the stable names of the domains of s in order.
func (s Set) Names() []string {
	var out []string
	for _, d := range s.Domains() {
		out = append(out, d.String())
	}
	return out
}

// String is the names joined by commas ("food,health"), "" when empty.
func (s Set) String() string { return strings.Join(s.Names(), ",") }

// ParseSet reads a set written by String; false when a name is unknown.
func ParseSet(text string) (Set, bool) {
	var s Set
	if text == "" {
		return s, true
	}
	for name := range strings.SplitSeq(text, ",") {
		d, ok := Parse(strings.TrimSpace(name))
		if !ok {
			return 0, false
		}
		s = s.With(d)
	}
	return s, true
}
