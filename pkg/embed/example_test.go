package embed_test

import (
	"context"
	"fmt"

	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/envconfig"
)

func ExampleNew() {
	// With EMBED_MODEL unset, the pipeline embeds offline.
	e, err := embed.New(envconfig.Defaults[embed.Config](), 0)
	if err != nil {
		panic(err)
	}
	vecs, err := e.Embed(context.Background(), []string{"科幻小说", ""})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Model(), e.Dimension(), len(vecs[0]))
	// Output:
	// hashing-v1-256 256 256
}

func ExampleCombine() {
	h := embed.NewHashing(0)
	shelf := []struct{ title, status string }{
		{"三体", embed.ShelfRead},
		{"银河帝国", embed.ShelfReading},
		{"球状闪电", embed.ShelfWant},
		{"红楼梦", embed.ShelfAbandoned},
	}
	var contribs []embed.Contribution
	for _, item := range shelf {
		w, ok := embed.ShelfWeight(item.status)
		if !ok {
			continue
		}
		contribs = append(contribs, embed.Contribution{Source: item.title, Weight: w, Vector: h.Vector(item.title)})
	}
	interest, _, ok, err := embed.Combine(h.Dimension(), contribs)
	if err != nil {
		panic(err)
	}
	fmt.Println("ok:", ok)
	fmt.Println("closer to 三体 than to 红楼梦:",
		embed.Cosine(interest, h.Vector("三体")) > embed.Cosine(interest, h.Vector("红楼梦")))
	// Output:
	// ok: true
	// closer to 三体 than to 红楼梦: true
}
