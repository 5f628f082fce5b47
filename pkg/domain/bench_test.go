package domain_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/recallhq/recall/pkg/domain"
)

// benchEN and benchZH are messages of a few hundred characters, the length
// of a chat message the context is asked for.
const (
	benchEN = "We're flying to Lisbon with the kids in May and I'm trying to plan the trip. " +
		"My son can't have any nuts and my wife doesn't eat meat, so restaurants are a worry. " +
		"Could you suggest a hotel near the old town that's quiet, and a couple of day trips by train? " +
		"We'd also like one evening at a concert if the budget allows."
	benchZH = "我们五月带孩子去里斯本旅游，我儿子对坚果过敏，我老婆不吃肉，所以吃饭是个问题。" +
		"能不能推荐一家老城附近安静的酒店，再推荐几条坐火车的一日游路线？如果预算够的话，我们还想去听一场音乐会。"
)

func BenchmarkScoresEnglish(b *testing.B) {
	domain.Default()
	b.SetBytes(int64(len(benchEN)))
	b.ReportAllocs()
	for b.Loop() {
		domain.Scores(benchEN)
	}
}

func BenchmarkScoresChinese(b *testing.B) {
	domain.Default()
	b.SetBytes(int64(len(benchZH)))
	b.ReportAllocs()
	for b.Loop() {
		domain.Scores(benchZH)
	}
}

// BenchmarkLoad reads the embedded lexicons, as the first call does once.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadCost reports what loading the lexicons costs: time, and the heap
// the loaded lexicon holds.
func TestLoadCost(t *testing.T) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	l, err := domain.Load()
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	en, zh := l.Size()
	t.Logf("loaded %d English and %d Chinese entries in %v; heap held %.1f MB (the tables %.1f MB)", en, zh, took, float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), float64(l.Bytes())/(1<<20))
	runtime.KeepAlive(l)
}
