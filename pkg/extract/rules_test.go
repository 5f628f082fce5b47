package extract

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// testRules returns a Rules value; the dictionaries behind it load once per
// test binary.
func testRules(t testing.TB) *Rules {
	t.Helper()
	r, err := NewRules(RulesOptions{})
	require.NoError(t, err)
	return r
}

type rulesCase struct {
	name string
	text string
	want []Fact   // must all be present
	not  []string // values that must not be reported under any kind
}

func runRulesCases(t *testing.T, cases []rulesCase) {
	t.Helper()
	r := testRules(t)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := r.Extract(context.Background(), Input{Text: tt.text})
			require.NoError(t, err)
			for _, w := range tt.want {
				require.Contains(t, got, w, "text %q", tt.text)
			}
			for _, v := range tt.not {
				for _, f := range got {
					require.NotEqual(t, v, f.Value, "text %q reported %+v", tt.text, f)
				}
			}
		})
	}
}

func fact(kind Kind, display string) Fact {
	return Fact{Kind: kind, Value: Normalize(display), Display: display}
}

func TestRulesChineseTitles(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "book title marks default to books", text: "我最近在读《三体》，太好看了。",
			want: []Fact{fact(KindBookTitle, "三体")}},
		{name: "film cue after the title", text: "你看过《霸王别姬》这部电影吗？",
			want: []Fact{fact(KindFilm, "霸王别姬")}},
		{name: "music cue before the title", text: "我最喜欢的歌是《晴天》。",
			want: []Fact{fact(KindMusic, "晴天")}},
		{name: "corner brackets", text: "她唱的「后来」我听了很多遍。",
			want: []Fact{fact(KindMusic, "后来")}},
		{name: "quotes with a cue", text: "最近在听“稻香”这首歌。",
			want: []Fact{fact(KindMusic, "稻香")}},
		{name: "quotes without a cue are emphasis", text: "他说这就是所谓的“成长”吧。",
			not: []string{"成长"}},
		{name: "awards in brackets are not titles", text: "他获得过第12届奥斯卡金像奖【最佳女主角】。",
			not: []string{"最佳女主角"}},
		{name: "typed anchor after an unbracketed title", text: "知道盗梦空间这部电影吗？",
			want: []Fact{fact(KindFilm, "盗梦空间")}},
		{name: "song before 这首歌", text: "你听过小幸运这首歌吗？",
			want: []Fact{fact(KindMusic, "小幸运")}},
		{name: "work after 代表作", text: "代表作品有荒蛮故事，听说过吗？",
			want: []Fact{{Kind: KindBookTitle, Value: "荒蛮故事", Display: "荒蛮故事"}}},
		{name: "list of titles after an anchor", text: "代表作品有泰坦尼克号、终结者、阿凡达等，看过吗？",
			want: []Fact{fact(KindFilm, "泰坦尼克号"), fact(KindFilm, "终结者"), fact(KindFilm, "阿凡达")}},
		{name: "descriptions are not titles", text: "这是2010年上映的一部影片，拍的相当好。",
			not: []string{"2010年上映的一部影片", "拍的相当好"}},
		{name: "questions are not titles", text: "你知道票房收入是多少吗？",
			not: []string{"票房收入"}},
	})
}

func TestRulesChinesePeople(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "transliterated name after a role", text: "导演是尼克·卡索维茨。",
			want: []Fact{fact(KindPerson, "尼克·卡索维茨")}},
		{name: "transliterated names joined by 和", text: "我很喜欢莱昂纳多·迪卡普里奥和凯特·温斯莱特。",
			want: []Fact{fact(KindPerson, "莱昂纳多·迪卡普里奥"), fact(KindPerson, "凯特·温斯莱特")}},
		{name: "transliterated name before 这个人", text: "知道瑞秋·麦克亚当斯这个人吗？",
			want: []Fact{fact(KindPerson, "瑞秋·麦克亚当斯")}},
		{name: "name tag from the dictionary", text: "我觉得张国荣的演技无人能及。",
			want: []Fact{fact(KindPerson, "张国荣")}},
		{name: "X唱的", text: "这首歌是林宥嘉唱的。",
			want: []Fact{fact(KindPerson, "林宥嘉")}},
		{name: "原唱是X", text: "原唱是齐秦，后来很多人翻唱过。",
			want: []Fact{fact(KindPerson, "齐秦")}},
		{name: "X主演", text: "这部片子由周润发主演。",
			want: []Fact{fact(KindPerson, "周润发")}},
		{name: "X导演的", text: "我很喜欢张艺谋导演的电影。",
			want: []Fact{fact(KindPerson, "张艺谋")}},
		{name: "知道X这个人吗 with an unknown name", text: "知道郎雄这个人吗？",
			want: []Fact{fact(KindPerson, "郎雄")}},
		{name: "list of names", text: "主演有周润发、张国荣、钟楚红。",
			want: []Fact{fact(KindPerson, "周润发"), fact(KindPerson, "张国荣"), fact(KindPerson, "钟楚红")}},
		{name: "list with spaces", text: "主要演员有姜文、 周润发、 葛优。",
			want: []Fact{fact(KindPerson, "姜文"), fact(KindPerson, "周润发"), fact(KindPerson, "葛优")}},
		{name: "X写的 makes an author", text: "推荐一本书：刘慈欣写的三体。",
			want: []Fact{fact(KindAuthor, "刘慈欣")}},
		{name: "X的《title》", text: "我最近在读余华的《活着》。",
			want: []Fact{fact(KindAuthor, "余华"), fact(KindBookTitle, "活着")}},
		{name: "Japanese name listed as a noun", text: "我是村上春树的粉丝。",
			want: []Fact{fact(KindPerson, "村上春树")}},
		{name: "Latin name between Chinese anchors", text: "知道lady gaga这个人吗？",
			want: []Fact{fact(KindPerson, "lady gaga")}},
		{name: "ordinary words tagged as names are ignored", text: "我明白了，那可真是厉害了。",
			not: []string{"明白", "那可真"}},
		{name: "places are not people", text: "他出生于德国伍珀塔尔。",
			not: []string{"伍珀塔尔"}},
	})
}

func TestRulesChineseOrganisations(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "label with 公司 dropped", text: "这张专辑是滚石唱片公司发行的。",
			want: []Fact{fact(KindTopic, "滚石唱片")}},
		{name: "studio", text: "他是皮克斯动画工作室的核心人物。",
			want: []Fact{fact(KindTopic, "皮克斯动画工作室")}},
		{name: "band is a person", text: "我最近迷上了好妹妹乐队。",
			want: []Fact{fact(KindPerson, "好妹妹乐队")}},
		{name: "genre bands are genres", text: "他们是美国的一支朋克乐队。",
			not: []string{"朋克乐队"}},
	})
}

func TestRulesGenresAndTopics(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "chinese genres", text: "我喜欢悬疑片和科幻小说，也爱听摇滚。",
			want: []Fact{fact(KindGenre, "悬疑"), fact(KindGenre, "科幻"), fact(KindGenre, "摇滚")}},
		{name: "synonyms share a value", text: "爵士乐和爵士我都听。",
			want: []Fact{fact(KindGenre, "爵士")}},
		{name: "bare everyday words are not genres", text: "这个动作很流行，历史上很少见。",
			not: []string{"动作", "流行", "历史"}},
		{name: "chinese topics", text: "周末一般去爬山或者游泳。",
			want: []Fact{fact(KindTopic, "登山"), fact(KindTopic, "游泳")}},
		{name: "english genres", text: "I'm really into jazz and sci-fi movies lately.",
			want: []Fact{fact(KindGenre, "jazz"), fact(KindGenre, "science fiction")}},
		{name: "longest lexicon term wins", text: "I love rock climbing.",
			want: []Fact{fact(KindTopic, "hiking")}, not: []string{"rock"}},
		{name: "verbs are not genres or topics", text: "Thanks, you rock! Running my own business is hard.",
			not: []string{"rock", "running"}},
		{name: "quoted title keeps no trailing full stop", text: `We just did a piece called "Finding Freedom."`,
			want: []Fact{fact(KindBookTitle, "Finding Freedom")}},
		{name: "genre inside a title is part of the title", text: "我在看《科幻世界》杂志。",
			want: []Fact{fact(KindBookTitle, "科幻世界")}, not: []string{"科幻"}},
	})
}

func TestRulesEnglish(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "books by X", text: "Have you read any books by Ursula K. Le Guin?",
			want: []Fact{fact(KindAuthor, "Ursula K. Le Guin")}},
		{name: "title by author", text: "I just finished reading Dune by Frank Herbert and loved it.",
			want: []Fact{fact(KindBookTitle, "Dune"), fact(KindAuthor, "Frank Herbert")}},
		{name: "quoted title and director", text: `My favourite film is "The Godfather", directed by Francis Ford Coppola.`,
			want: []Fact{fact(KindFilm, "The Godfather"), fact(KindPerson, "Francis Ford Coppola")}},
		{name: "X's novels", text: "Tolkien's novels got me into fantasy.",
			want: []Fact{fact(KindAuthor, "Tolkien"), fact(KindGenre, "fantasy")}},
		{name: "X's album Y", text: "Have you heard of Taylor Swift's album Red?",
			want: []Fact{fact(KindPerson, "Taylor Swift"), fact(KindMusic, "Red")}},
		{name: "X’s book, curly apostrophe", text: "I loved Marlene’s book.",
			want: []Fact{fact(KindAuthor, "Marlene")}},
		{name: "X’S ALBUM, curly apostrophe in capitals", text: "Have you heard of TAYLOR SWIFT’S ALBUM Red?",
			want: []Fact{fact(KindPerson, "TAYLOR SWIFT")}},
		{name: "I love X: a band, a person or a title, nothing says which", text: "I love Radiohead more than anything.",
			want: []Fact{fact(KindName, "Radiohead")}},
		{name: "watched X", text: "We watched Spirited Away last night.",
			want: []Fact{fact(KindFilm, "Spirited Away")}},
		{name: "capitalised phrase mid-sentence", text: "I think Christopher Nolan is the best director.",
			want: []Fact{fact(KindName, "Christopher Nolan")}},
		{name: "stop words and sentence starts are skipped", text: "The weather in March was nice. I went out on Monday.",
			not: []string{"the weather", "march", "monday", "i"}},
		{name: "places are dropped", text: "Yesterday I met John Smith at the New York Public Library.",
			want: []Fact{fact(KindName, "John Smith")}, not: []string{"new york public library"}},
		{name: "organisations are topics", text: "The album came out on Reprise Records in 2004.",
			want: []Fact{fact(KindTopic, "Reprise Records")}},
	})
}

// A capitalised English name is a person's only when something says so; a
// place's head word makes it a place (not reported); what nothing types
// stays a name, never a guessed kind.
func TestRulesEnglishKinds(t *testing.T) {
	t.Parallel()
	runRulesCases(t, []rulesCase{
		{name: "a canal", text: "The Panama Canal is amazing. I visited Panama Canal last year.", not: []string{"panama canal"}},
		{name: "a garden", text: "I visited the Enchanted Garden yesterday.", not: []string{"enchanted garden"}},
		{name: "a bridge, next to a book cue", text: "I'm reading about Golden Gate Bridge history.", not: []string{"golden gate bridge"}},
		{name: "a tower", text: "I really like Eiffel Tower photos.", not: []string{"eiffel tower"}},
		{name: "a park after I love", text: "I love Central Park in the autumn.", not: []string{"central park"}},
		{name: "a place after a typed trigger keeps the trigger's kind", text: "We watched Notting Hill again.",
			want: []Fact{fact(KindFilm, "Notting Hill")}},
		{name: "a museum, possessive", text: "We loved Natural History Museum's dinosaurs.", not: []string{"natural history museum"}},
		{name: "a title before the name", text: "I talked to Dr. Anna Smith today.", want: []Fact{fact(KindPerson, "Dr. Anna Smith")}},
		{name: "Mr.", text: "Yesterday I met Mr. Smith at the station.", want: []Fact{fact(KindPerson, "Mr. Smith")}},
		{name: "someone's friend", text: "We went out with her friend Anna Lee.", want: []Fact{fact(KindPerson, "Anna Lee")}},
		{name: "an initial, books near", text: "Everyone should read Ursula K. Le Guin.", want: []Fact{fact(KindAuthor, "Ursula K. Le Guin")}},
		{name: "a possessive's noun a word on", text: "I love Taylor Swift's new album.", want: []Fact{fact(KindPerson, "Taylor Swift")},
			not: []string{"taylor swift's"}},
		{name: "a possessive without a noun", text: "I'm Taylor Swift's biggest fan", want: []Fact{fact(KindName, "Taylor Swift")},
			not: []string{"taylor swift's"}},
		{name: "a novel's name", text: "I love Anna Karenina.", want: []Fact{fact(KindName, "Anna Karenina")}},
		{name: "a name after by, no books near", text: "Blade Runner by Ridley Scott still holds up.", want: []Fact{fact(KindName, "Ridley Scott")}},
		{name: "a name after by, books near", text: "I finished the novel Dune by Frank Herbert.", want: []Fact{fact(KindAuthor, "Frank Herbert")}},
		{name: "connectors and no cue", text: "I started a job at Bank of America today.", want: []Fact{fact(KindName, "Bank of America")}},
		{name: "a typed trigger still types", text: "My favourite singer Adele Adkins released a song.", want: []Fact{fact(KindPerson, "Adele Adkins")}},
	})
}

func TestRulesEmptyAndPlainText(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	for _, text := range []string{"", "   ", "哈哈，好的，谢谢你！", "ok thanks", "12345"} {
		got, err := r.Extract(context.Background(), Input{Text: text})
		require.NoError(t, err)
		require.Empty(t, got, "text %q", text)
	}
}

func TestRulesFactsAreNormalised(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	got, err := r.Extract(context.Background(), Input{Text: "我读过《三体》，也读过“三体”这本书。《 三体 》真好看。"})
	require.NoError(t, err)
	require.Equal(t, []Fact{{Kind: KindBookTitle, Value: "三体", Display: "三体"}}, got)
	for _, f := range got {
		require.Equal(t, Normalize(f.Display), f.Value)
	}
}

func TestNewRulesOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    RulesOptions
		text    string
		want    []Fact
		wantErr bool
	}{
		{name: "default title kind is book", text: "《活着》", want: []Fact{fact(KindBookTitle, "活着")}},
		{name: "custom default title kind", opts: RulesOptions{DefaultTitleKind: KindFilm}, text: "《活着》",
			want: []Fact{fact(KindFilm, "活着")}},
		{name: "non-title default is rejected", opts: RulesOptions{DefaultTitleKind: KindPerson}, wantErr: true},
		{name: "unknown default is rejected", opts: RulesOptions{DefaultTitleKind: "poem"}, wantErr: true},
		{name: "skip chinese keeps brackets and lexicon", opts: RulesOptions{SkipChinese: true},
			text: "我爱听周杰伦的《晴天》和摇滚。",
			want: []Fact{fact(KindMusic, "晴天"), fact(KindGenre, "摇滚")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := NewRules(tt.opts)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			got, err := r.Extract(context.Background(), Input{Text: tt.text})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestRulesCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := testRules(t).Extract(ctx, Input{Text: "《三体》"})
	require.ErrorIs(t, err, context.Canceled)
}

func TestRulesConcurrentUse(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	turns := loadTurns(t)
	want := make([][]Fact, len(turns))
	for i, text := range turns {
		var err error
		want[i], err = r.Extract(context.Background(), Input{Text: text})
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, text := range turns {
				got, err := r.Extract(context.Background(), Input{Text: text})
				if err != nil {
					errs <- err
					return
				}
				if len(got) != len(want[i]) {
					errs <- context.DeadlineExceeded
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestRulesProvenance pins which rule finds what, so that a change to one
// rule that silently shifts work onto another shows up here.
func TestRulesProvenance(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	tests := []struct {
		text, value, rule string
	}{
		{"你看过《霸王别姬》吗？", "霸王别姬", "bracket"},
		{"她唱的「后来」很好听。", "后来", "corner"},
		{"最近在听“稻香”这首歌。", "稻香", "quote"},
		{"导演是尼克·卡索维茨。", "尼克·卡索维茨", "dot"},
		{"知道盗梦空间这部电影吗？", "盗梦空间", "typedAfter"},
		{"这首歌是林宥嘉唱的。", "林宥嘉", "personAfter"},
		{"原唱是齐秦。", "齐秦", "personBefore"},
		{"代表作品有荒蛮故事，听说过吗？", "荒蛮故事", "workBefore"},
		{"她的原名叫王若琳。", "王若琳", "personBefore"},
		{"我觉得张国荣的演技无人能及。", "张国荣", "nr"},
		{"这张专辑是滚石唱片公司发行的。", "滚石唱片", "org"},
		{"我最近迷上了好妹妹乐队。", "好妹妹乐队", "band"},
		{"我喜欢悬疑片。", "悬疑", "lexicon"},
		{"主要演员有姜文、 周润发、 葛优。", "葛优", "list:nr"},
		{"Have you read any books by Ursula K. Le Guin?", "ursula k. le guin", "en-trigger"},
		{"Tolkien's novels are long.", "tolkien", "en-possessive"},
		{"I think Christopher Nolan is great.", "christopher nolan", "en-phrase"},
	}
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.value, func(t *testing.T) {
			t.Parallel()
			st := r.newState(tt.text)
			st.run()
			rules := map[string]string{}
			for _, c := range st.accepted {
				surface := c.display
				if surface == "" {
					surface = tt.text[c.start:c.end]
				}
				rules[Normalize(surface)] = c.rule
			}
			require.Equal(t, tt.rule, rules[tt.value], "accepted: %v", rules)
		})
	}
}

// TestRulesFactBound: a run of capitalised words or of dotted name parts
// longer than any name is no fact (its value would be too long for the
// facts' primary key), while a name of ordinary length in its place is.
func TestRulesFactBound(t *testing.T) {
	t.Parallel()
	r := testRules(t)
	long := "Ab" + strings.Repeat("cd", MaxFactRunes/2)
	tests := []struct {
		name, text, short string
	}{
		{"capitalised phrase", "I think Christopher " + long + " is great.", "I think Christopher Nolan is great."},
		{"possessive", "I loved Marlene " + long + "’s book.", "I loved Marlene Dietrich’s book."},
		{"trigger", "Have you read any books by Ursula " + long + "?", "Have you read any books by Ursula Le Guin?"},
		{"dotted name", "导演是" + strings.Repeat("尼克·", MaxFactRunes/2) + "卡索维茨。", "导演是尼克·卡索维茨。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			facts, err := r.Extract(context.Background(), Input{Text: tt.text})
			require.NoError(t, err)
			for _, f := range facts {
				require.LessOrEqual(t, runeCount(f.Display), MaxFactRunes, "%+v", f)
				require.LessOrEqual(t, runeCount(f.Value), MaxFactRunes, "%+v", f)
			}
			facts, err = r.Extract(context.Background(), Input{Text: tt.short})
			require.NoError(t, err)
			require.NotEmpty(t, facts, tt.short)
		})
	}
}
